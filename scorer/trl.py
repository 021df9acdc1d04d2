"""A TRL-style reward function over the same scoring core, so the reward works outside Vertex.

TRL's ``GRPOTrainer`` calls reward functions with ``completions`` (strings, or lists of chat
messages in the conversational format) and every dataset column as a keyword list; it passes more
than documented (``prompts``, ``completion_ids``, ``trainer_state`` …), hence ``**kwargs``. The
dataset's ``references`` may arrive as one column of dicts or as separate ``form``/``stanzas``/
``refrain``/``script`` columns; both work.
"""

from __future__ import annotations

from typing import Any

from scorer.score import score

REFERENCE_KEYS = ("form", "stanzas", "refrain", "script", "theme")


def _refs_at(i: int, kwargs: dict[str, Any]) -> dict[str, str]:
    refs: dict[str, str] = {}
    col = kwargs.get("references")
    if isinstance(col, list) and i < len(col) and isinstance(col[i], dict):
        refs.update({k: str(v) for k, v in col[i].items() if v is not None})
    for key in REFERENCE_KEYS:
        v = kwargs.get(key)
        if isinstance(v, list) and i < len(v) and v[i] is not None:
            refs[key] = str(v[i])
        elif isinstance(v, str):
            refs[key] = v
    return refs


def structure_reward(completions: list[Any], **kwargs: Any) -> list[float]:
    """One reward in [-1, 1] per completion: the rhyme-topology reward of scorer.score."""
    return [score(c, _refs_at(i, kwargs)).reward for i, c in enumerate(completions)]
