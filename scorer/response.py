"""From a model response to its text: the non-thought text parts, whatever shape the response has.

Vertex sends Gemini ``Content`` (thought parts and text parts); outside Vertex a response may be a
plain string or chat messages (TRL's conversational format). Only what a reader of the answer sees
counts: thought parts are the model's, not the poem's.
"""

from __future__ import annotations

from typing import Any

from scorer.arabic import normalize_arabic
from scorer.lexicon import is_arabic_word, is_arabizi_word
from scorer.wordshape import is_piece


def extract_text(response: Any) -> str:
    """Join the non-thought text parts of a response.

    Accepts a Gemini ``Content`` dict (``{"parts": [...]}``), a list of parts, a chat message or
    list of messages (``{"role", "content"}``, the TRL conversational format; the last assistant
    message is used), or a plain string. Anything else yields ``""``.
    """
    if isinstance(response, str):
        return response
    if isinstance(response, dict):
        if "parts" in response:
            return _parts_text(response.get("parts"))
        content = response.get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            return _parts_text(content)
        text = response.get("text")
        if isinstance(text, str) and not response.get("thought"):
            return text
        return ""
    if isinstance(response, list):
        if response and all(isinstance(m, dict) and "role" in m and "content" in m for m in response):
            for m in reversed(response):
                if m.get("role") in ("assistant", "model"):
                    return extract_text(m)
            return extract_text(response[-1])
        return _parts_text(response)
    return ""


LINE_SHARE = 0.6
"""A part's edge counts as a whole line, for a boundary between letters that the lexicon cannot
settle, when it holds at least this share of the median line (in characters). Over the genuine
strophic corpus (167 poems, 2,729 line breaks, 45,376 cuts inside words) the shortest line is 0.57
of its poem's median: at 0.6 two line breaks of 2,729 read as cuts, and 504 cuts (all in lines of
1.2 medians or more, a whole bayt on one line) read as breaks when the lexicon is silent."""


def _parts_text(parts: Any) -> str:
    """The text parts as one text. Gemini's parts are pieces of one stream, which Google's SDKs
    join with nothing between (``response.text``), and so does this: a boundary with whitespace on
    either side (a stream cut at a space or a line break) is joined as is, so a part ending in
    ``\n`` does not gain a blank line inside a stanza and a line cut at a space stays one line. A
    boundary between two letters is either a word the stream cut (glued back) or a line break that
    parts sent one line each lost (`_line_lost`)."""
    if not isinstance(parts, list):
        return ""
    texts: list[str] = []
    for p in parts:
        if isinstance(p, str):
            t = p
        elif isinstance(p, dict) and not p.get("thought") and isinstance(p.get("text"), str):
            t = p["text"]
        else:
            continue
        if t:
            texts.append(t)
    if len(texts) < 2:
        return "".join(texts)
    line = _median_line(texts)
    out = [texts[0]]
    for t in texts[1:]:
        if _line_lost(out[-1], t, line):
            out.append("\n")
        out.append(t)
    return "".join(out)


def _median_line(texts: list[str]) -> int:
    """The median length of the lines the parts hold whole (a part's first and last line may be
    pieces of one); of every line when no part holds one whole (a part per line)."""
    whole: list[int] = []
    edges: list[int] = []
    last = len(texts) - 1
    for k, t in enumerate(texts):
        lines = t.split("\n")
        for i, ln in enumerate(lines):
            if ln.strip():
                cut = (i == 0 and k > 0) or (i == len(lines) - 1 and k < last)
                (edges if cut else whole).append(len(ln.strip()))
    lengths = sorted(whole or edges)
    return lengths[len(lengths) // 2] if lengths else 0


def _word(w: str) -> bool:
    """A normalised token the lexicon knows as a word (no piece of one: `scorer.wordshape`)."""
    if w.isascii():
        return is_arabizi_word(w)
    return is_arabic_word(w) and not is_piece(w)


def _line_lost(head: str, tail: str, line: int) -> bool:
    """Two parts meet without whitespace (``line``: the median line length of the parts): a line
    break is missing between them unless the stream cut a word. A boundary beside punctuation is a
    lost break. One between letters is a lost break when the text on each side up to its line
    break is a whole line (`LINE_SHARE` of the median), unless the letters around it glued make a
    word and apart do not (a word cut at the end of a line). Reads each side once (linear)."""
    # a diacritic (a final shadda: ونحبّ) folds to nothing: the letter it sits on decides
    a, b = normalize_arabic(head[-3:])[-1:], normalize_arabic(tail[0])
    if a.isspace() or b.isspace() or not a or not b:
        return False
    if not (a.isalnum() and b.isalnum()) or a.isascii() != b.isascii():
        return True
    edge = min(len(head) - head.rfind("\n") - 1, tail.find("\n") % (len(tail) + 1))
    if edge < LINE_SHARE * line:
        return False
    left = _run(normalize_arabic(head.rsplit(None, 1)[-1])[::-1])[::-1]
    right = _run(normalize_arabic(tail.split(None, 1)[0]))
    return not (_word(left + right) and not (_word(left) and _word(right)))


def _run(w: str) -> str:
    """The letters (and digits) ``w`` starts with."""
    for i, ch in enumerate(w):
        if not ch.isalnum():
            return w[:i]
    return w
