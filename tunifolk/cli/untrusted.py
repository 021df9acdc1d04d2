"""Text that came from outside the operator's own hands, made safe to show: data, never markup or
control.

A rollout's response is the policy's output; a ledger record can be forged by anyone who can reach
the scorer; a reason, a form or a job's error message travels through both. Printed as they are, they
could drive the operator's terminal (clear the screen, set the window title, write the clipboard with
OSC 52), be read as Rich markup (and crash the command on an unbalanced tag), or break out of a
Markdown report's code fence. Everything the CLI prints of them goes through this module: control
characters (C0 other than newline and tab, DEL, C1) and the bidirectional overrides and isolates that
reorder what is shown are written as visible escapes; text reaches Rich as `Text`, which Rich never
parses as markup; Markdown gets a fence longer than any run of backticks inside it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rich.text import Text

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
"""Control characters, the marks, overrides and isolates that reorder text, and the invisible ones
(zero-width, word joiner, byte-order mark, line and paragraph separators). One character class:
linear in the text, whatever it holds."""
_BACKTICKS = re.compile("`+")
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|~])")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: Any) -> str:
    """The text with every control and reordering character written as a visible escape."""
    return _UNSAFE.sub(_escape, str(text))


def text(value: Any, style: str = "") -> Text:
    """Untrusted text as a Rich `Text`: shown as written, never parsed as markup."""
    return Text(visible(value), style=style)


def json_line(doc: Any) -> str:
    """`doc` as one JSON line with non-ASCII kept readable: json escapes C0 itself; DEL, C1 and the
    bidi controls, which it would write raw, become \\u escapes too (still the same JSON value)."""
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(doc, ensure_ascii=False))


def code_block(body: Any) -> list[str]:
    """Markdown lines of a fenced block holding `body` verbatim: the fence is longer than any run
    of backticks inside, so nothing in it can close the block (CommonMark, "Fenced code blocks")."""
    shown = visible(body)
    longest = max((len(m.group()) for m in _BACKTICKS.finditer(shown)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence, shown, fence]


def inline(value: Any) -> str:
    """Untrusted text inside a Markdown line: every character Markdown or HTML would read escaped."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", visible(value).replace("\n", " "))
