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


_PLACEHOLDER_RE = re.compile(r"\{\{\s*(prompt|response|system_instruction|references\.[A-Za-z0-9_]+)\s*\}\}")


def content_text(content: Any) -> str:
    """The text of a Content's non-thought parts (a thought is not the answer)."""
    parts = content.get("parts") if isinstance(content, dict) else None
    return "".join(
        p["text"]
        for p in parts or []
        if isinstance(p, dict) and isinstance(p.get("text"), str) and not p.get("thought")
    )


def fill_prompt(template: str, example: dict[str, Any], response: str) -> str:
    """The judge's prompt for one response: the ReinforcementTuningAutoraterScorer's placeholders,
    `{{prompt}}`, `{{response}}`, `{{system_instruction}}` and `{{references.NAME}}` (the REST
    reference: "Allows substituting prompt, response, system_instruction and references.reference
    (each wrapped in double curly braces)"), filled in one pass, so text inside a response that
    looks like a placeholder stays text."""
    contents = example.get("contents") or []
    prompt = "\n".join(
        content_text(c) for c in contents if isinstance(c, dict) and c.get("role", "user") == "user"
    )
    system = content_text(example.get("systemInstruction") or {})
    refs = example.get("references") if isinstance(example.get("references"), dict) else {}

    def value(m: re.Match[str]) -> str:
        key = m.group(1)
        if key == "prompt":
            return prompt
        if key == "response":
            return response
        if key == "system_instruction":
            return system
        return str(refs.get(key.split(".", 1)[1], ""))

    return _PLACEHOLDER_RE.sub(value, template)


def parse_answer(text: str, parse: dict[str, Any] | None) -> str:
    """A response parse (`ReinforcementTuningParseResponseConfig`, API names): REGEX_EXTRACT keeps the
    last match's first group (the whole match without a group), and "" without a match; any other
    parse passes the text as it is."""
    parse = parse or {}
    if parse.get("parseType") != "REGEX_EXTRACT":
        return text
    rx = re.compile(str(parse.get("regexExtractExpression", "")), re.S)
    last = None
    for last in rx.finditer(text):  # noqa: B007 - the last match is the one kept
        pass
    if last is None:
        return ""
    return last.group(1) if rx.groups else last.group(0)


def answer_reward(scorer: dict[str, Any], answer: str, example: dict[str, Any]) -> float:
    """The reward one judge answer gives under an autoraterScorer (API names): parsed by its
    `autoraterResponseParseConfig`, then an exact match against its expression (the
    correct/wrong rewards), else converted to a float (`parsedResponseConversionScorer`), clipped to
    [-1, 1] as every reward is. Raises ValueError for a parsed answer that is not a number."""
    got = parse_answer(answer, scorer.get("autoraterResponseParseConfig")).strip()
    exact = scorer.get("exactMatchScorer")
    if isinstance(exact, dict):
        refs = example.get("references") if isinstance(example.get("references"), dict) else {}
        expected = re.sub(
            r"\{\{\s*references\.([A-Za-z0-9_]+)\s*\}\}",
            lambda m: str(refs.get(m.group(1), "")),
            str(exact.get("expression", "")),
        ).strip()
        value = float(
            exact.get("correctAnswerReward" if got == expected else "wrongAnswerReward", 0.0) or 0.0
        )
    else:
        value = float(got)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"the parsed answer {got[:40]!r} is not a finite number")
    return max(-1.0, min(1.0, value))
