"""What Google's autorater does with a judge's prompt and answer, as far as a config can tell: the
tag a prompt asks the answer inside. Pure; read by the check (a prompt that asks for tags needs a
REGEX_EXTRACT parse, since the conversion scorer reads the parsed answer as the reward) and by the
emulator's stand-in judge (which answers inside the tags the prompt names)."""

from __future__ import annotations

import re
from typing import Any

_CLOSING_TAG_RE = re.compile(r"</([A-Za-z][A-Za-z0-9_-]{0,39})>")


def answer_tag(prompt: Any) -> str | None:
    """The tag a judge prompt asks the answer inside (`<answer></answer>` → "answer"), or None."""
    if not isinstance(prompt, str):
        return None
    return next((m.group(1) for m in _CLOSING_TAG_RE.finditer(prompt) if f"<{m.group(1)}>" in prompt), None)
