"""The tuning dataset's builder, pure: lines from the scorer's catalogue, both splits, JSONL bytes,
and the validation line the job's sample poem is paired with.

Prompts and reward come from one specification: every line's user turn is
``scorer.catalogue.instruction(...)`` and its ``references`` carry the very same parameters, which
the scorer reads back (docs/dataset.md). The builder refuses to write any line the checker
(``tunifolk.dataset.check``) would reject.

No I/O; builds are deterministic: ``random.Random(seed)`` only, fixed key order,
``ensure_ascii=False``, ``\\n`` line endings.
"""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from scorer.catalogue import FORMS, LANGUAGES, FormSpec, instruction
from tunifolk.dataset.check import check_line
from tunifolk.dataset.spec import SCRIPTS, SYSTEM_INSTRUCTIONS, TRAIN_LIMIT, VALIDATION_LIMIT
from tunifolk.dataset.themes import THEMES

# --- defaults: the seed's run (843 // 32 × 6 = 156 steps) -----------------------------------------

DEFAULT_SEED = 0
DEFAULT_TRAIN = 843
DEFAULT_VALIDATION = 64

FORM_WEIGHTS: dict[str, int] = {"malzuma": 3}
"""The malzuma is the run's main form: three shares of the dataset; every other form gets one."""


# --- building -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Variation:
    """Everything that shapes one prompt; the references are a projection of it."""

    form: str
    stanzas: int
    refrain: str  # "yes" | "no"
    script: str  # "arabic" | "arabizi"
    language: str  # one of scorer.catalogue.LANGUAGES
    theme: str  # a Theme id

    def theme_text(self) -> str:
        return next(t for t in THEMES if t.id == self.theme).text(self.language)

    def user_text(self) -> str:
        return instruction(
            self.form, self.stanzas, self.refrain, self.script, self.language, self.theme_text()
        )

    def references(self) -> dict[str, str]:
        return {
            "form": self.form,
            "stanzas": str(self.stanzas),
            "refrain": self.refrain,
            "script": self.script,
            "theme": self.theme_text(),
        }

    def example(self) -> dict[str, Any]:
        """The dataset line (docs/dataset.md), keys in a fixed order."""
        return {
            "systemInstruction": {"parts": [{"text": SYSTEM_INSTRUCTIONS[self.language]}]},
            "contents": [{"role": "user", "parts": [{"text": self.user_text()}]}],
            "references": self.references(),
        }


@dataclass(slots=True)
class Dataset:
    """Both splits, as variations (what was asked) in file order."""

    train: list[Variation]
    validation: list[Variation]


def refrain_options(spec: FormSpec) -> tuple[str, ...]:
    """A form with an optional refrain is asked both ways; a form without one never gets one."""
    return ("yes", "no") if spec.refrain == "optional" else ("no",)


def variations(form: str) -> list[Variation]:
    """Every distinct prompt the catalogue allows for ``form``, in a fixed order."""
    spec = FORMS[form]
    lo, hi = spec.stanzas_range
    return [
        Variation(form, n, refrain, script, language, theme.id)
        for n in range(lo, hi + 1)
        for refrain in refrain_options(spec)
        for script in SCRIPTS
        for language in LANGUAGES
        for theme in THEMES
    ]


def quotas(total: int, capacity: dict[str, int]) -> dict[str, int]:
    """Split ``total`` over the forms by ``FORM_WEIGHTS`` (largest remainder, ties in catalogue
    order), never above a form's ``capacity``; what a full form cannot take goes to the others."""
    out = dict.fromkeys(capacity, 0)
    left = total
    while left > 0:
        open_forms = [f for f in capacity if out[f] < capacity[f]]
        if not open_forms:
            raise ValueError(f"the catalogue allows only {sum(capacity.values())} distinct prompts")
        weight = {f: FORM_WEIGHTS.get(f, 1) for f in open_forms}
        share = {f: left * weight[f] / sum(weight.values()) for f in open_forms}
        give = {f: math.floor(share[f]) for f in open_forms}
        rest = left - sum(give.values())
        for f in sorted(open_forms, key=lambda f: -(share[f] - give[f]))[:rest]:
            give[f] += 1
        for f in open_forms:
            take = min(give[f], capacity[f] - out[f])
            out[f] += take
            left -= take
    return out


def _spread(items: list[Variation], key: Callable[[Variation], object]) -> list[Variation]:
    """Reorder (stably) so that every value of ``key`` comes up once before any comes up twice:
    any prefix of the result is then balanced over that key."""
    seen: Counter[object] = Counter()
    ranked = []
    for item in items:
        ranked.append((seen[key(item)], item))
        seen[key(item)] += 1
    return [item for _, item in sorted(ranked, key=lambda pair: pair[0])]


def _ordered(form: str, rng: random.Random) -> list[Variation]:
    """The form's variations in the order the splits draw them: shuffled, then balanced over
    theme, over stanza count and refrain, and finally (primary) over script × language; the
    form's canonical asks (default stanza count, each refrain option, each script) come first so
    the validation split always holds a line that the scorer's sample poem matches."""
    items = variations(form)
    rng.shuffle(items)
    items = _spread(items, lambda v: v.theme)
    items = _spread(items, lambda v: (v.stanzas, v.refrain))
    items = _spread(items, lambda v: (v.script, v.language))
    spec = FORMS[form]
    canonical: list[Variation] = []
    for refrain in refrain_options(spec):
        for script in SCRIPTS:
            canonical.append(
                next(v for v in items if (v.stanzas, v.refrain, v.script) == (spec.stanzas, refrain, script))
            )
    return canonical + [v for v in items if v not in canonical]


def build(
    seed: int = DEFAULT_SEED, train: int = DEFAULT_TRAIN, validation: int = DEFAULT_VALIDATION
) -> Dataset:
    """Both splits for ``seed``: exact counts, no prompt twice, no prompt in both splits.

    Raises ``ValueError`` for counts outside the service limits (the CLI turns that into a usage
    error) and ``AssertionError`` if a built line fails the checker (a bug, never shipped).
    """
    _check_counts(train, validation)
    rng = random.Random(seed)
    ordered = {form: _ordered(form, rng) for form in FORMS}
    capacity = {form: len(v) for form, v in ordered.items()}
    val_q = quotas(validation, capacity)
    train_q = quotas(train, {f: capacity[f] - val_q[f] for f in FORMS})
    val: list[Variation] = []
    tr: list[Variation] = []
    for form in FORMS:
        val += ordered[form][: val_q[form]]
        tr += ordered[form][val_q[form] : val_q[form] + train_q[form]]
    rng.shuffle(val)
    rng.shuffle(tr)
    dataset = Dataset(tr, val)
    _assert_clean(dataset)
    return dataset


def _check_counts(train: int, validation: int) -> None:
    if not 1 <= train <= TRAIN_LIMIT:
        raise ValueError(f"--train must be 1 to {TRAIN_LIMIT:,} (the service's training limit), got {train}")
    if not 1 <= validation <= VALIDATION_LIMIT:
        raise ValueError(
            f"--validation must be 1 to {VALIDATION_LIMIT:,} (the service's validation limit), "
            f"got {validation}"
        )


def _assert_clean(dataset: Dataset) -> None:
    """Every line passes the checker, and no user text or prompt appears twice anywhere."""
    seen: set[str] = set()
    for v in dataset.validation + dataset.train:
        line = dumps(v.example())
        problems = check_line(line)
        assert not problems, f"built a bad line ({problems}): {line}"
        assert v.user_text() not in seen, f"duplicate prompt: {v}"
        seen.add(v.user_text())


def dumps(example: dict[str, Any]) -> str:
    """One JSONL line (without the newline): the key order given, real UTF-8, no escapes."""
    return json.dumps(example, ensure_ascii=False)


def jsonl(variations_: Iterable[Variation]) -> bytes:
    """The bytes of a JSONL file: one line per example, each ending in ``\\n``."""
    return "".join(dumps(v.example()) + "\n" for v in variations_).encode("utf-8")


# --- the tuning job's validation example ----------------------------------------------------------


def pick_validation_example(validation: list[Variation], form: str, poem: str) -> tuple[Variation, float]:
    """The validation line of ``form`` that the sample ``poem`` scores best against (the first of
    equals, in file order), and that reward: the job's create-time reward check then pairs a real
    dataset line with a real response, and a good poem must come out high."""
    from scorer.score import score  # the scorer is pure; imported here so checking never needs it

    best: tuple[Variation, float] | None = None
    for v in validation:
        if v.form != form:
            continue
        reward = score(poem, v.references()).reward
        if best is None or reward > best[1]:
            best = (v, reward)
    if best is None:
        raise ValueError(f"the validation split has no {form} line")
    return best


def validation_example(variation: Variation, poem: str) -> dict[str, Any]:
    """``{example, sample_response}`` as the ``validation_example`` input (docs/config.md)."""
    return {
        "example": variation.example(),
        "sample_response": {"role": "model", "parts": [{"text": poem}]},
    }
