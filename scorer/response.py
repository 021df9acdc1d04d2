"""From a model response to its text: the non-thought text parts, whatever shape the response has.

Vertex sends Gemini ``Content`` (thought parts and text parts); outside Vertex a response may be a
plain string or chat messages (TRL's conversational format). Only what a reader of the answer sees
counts: thought parts are the model's, not the poem's.
"""

from __future__ import annotations

from typing import Any


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


def _parts_text(parts: Any) -> str:
    """The text parts as one text. Gemini's parts are pieces of one stream, which Google's SDKs
    join with nothing between (``response.text``): a boundary that already holds a line break is
    joined as is, so a part ending in ``\n`` does not gain a blank line (a stanza break) inside a
    stanza. A boundary without one is a line break: a part that ends a line is not glued to the
    next line's first word (a blank line it lost there is ``scorer.stanzas``'s business)."""
    if not isinstance(parts, list):
        return ""
    out: list[str] = []
    for p in parts:
        if isinstance(p, str):
            t = p
        elif isinstance(p, dict) and not p.get("thought") and isinstance(p.get("text"), str):
            t = p["text"]
        else:
            continue
        if out and t and not out[-1].endswith("\n") and not t.startswith("\n"):
            out.append("\n")
        out.append(t)
    return "".join(out)


def thought_text(response: Any) -> str:
    """Join the thought parts' text of a Gemini ``Content`` (or list of parts): not the poem, but
    whether a judge reads them is not documented, so words aimed at one count there too
    (`scorer.hidden`, docs/scorer.md "One text")."""
    parts = response.get("parts") if isinstance(response, dict) else response
    if not isinstance(parts, list):
        return ""
    return "\n".join(
        p["text"]
        for p in parts
        if isinstance(p, dict) and p.get("thought") and isinstance(p.get("text"), str)
    )
