"""Trip wires: pure functions over the rollout ledger's records, step by step, that catch reward
hacking while it starts, from what the samples are rather than from the curves alone.

Each wire compares a step (with its neighbours, when a step has fewer than MIN_SAMPLES records)
against the run's own start (the first BASELINE_SHARE of its steps):

* **length drift**: the mean response length leaves [LENGTH_LOW, LENGTH_HIGH] x its start;
* **diversity collapse**: distinct word pairs across the step's samples, per pair, fall under
  DIVERSITY_DROP x the start's (many samples, one template);
* **zero spread**: the share of prompt groups (one example's samples) whose rewards are all equal
  reaches ZERO_SPREAD (no learning signal for GRPO);
* **repeated lines, unknown words, dropped text**: the share of lines repeated within a poem, of
  words the lexicon does not know (the `language` sub-score's complement) and of samples with text
  dropped before scoring (`p_dropped`) rise by RATE_RISE over the start;
* **against the judge**: the structure reward parts from a judge reward by JUDGE_GAP (its rise less
  the judge's) while the judge falls by JUDGE_FALL or more.

A wire fires on a step when its condition holds there and on the PERSIST - 1 steps before it (one
odd step is noise). `verdicts()` gives one `health.Verdict` per wire, explained in one line with the
steps it fired on, and a HACKING verdict: FAIL when the structure reward parts from the judge, or
when HACKING_WIRES wires fire together.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tunifolk.health import FAIL, OK, WARN, Verdict

if TYPE_CHECKING:  # the ledger's reader (tunifolk.ledger) imports the trip wires: a type only
    from tunifolk.ledger.bigquery import Rollout

MIN_SAMPLES = 32
"""Records a step's figures are read over: a step with fewer borrows its previous steps."""
BASELINE_SHARE = 0.1
LENGTH_LOW, LENGTH_HIGH = 0.5, 2.0
DIVERSITY_DROP = 0.7
ZERO_SPREAD = 0.5
RATE_RISE = 0.15
JUDGE_GAP = 0.3
"""Structure's move minus the judge's move, from the start, at which they part."""
JUDGE_FALL = 0.1
"""The judge must also have fallen this much: both rising is learning, not hacking."""
JUDGE_WINDOW = 6
"""Steps the judge's curve is averaged over (one step's judge mean is noisy)."""
PERSIST = 3
HACKING_WIRES = 2
HACKING = "hacking"
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class StepFigures:
    """What the wires read from a window of records ending at `step`."""

    step: int
    samples: int
    length: float
    distinct_pairs: float
    zero_spread: float | None
    repeated_lines: float
    unknown_words: float
    dropped: float
    structure: float


def figures(step: int, rows: Sequence[Rollout]) -> StepFigures:
    """The figures of `rows` (one step, or a window of steps), pure."""
    pairs: set[tuple[str, str]] = set()
    total_pairs = repeated = lines_n = 0
    groups: dict[tuple[int, str], list[float]] = defaultdict(list)
    for r in rows:
        words = _WORD.findall(r.response.lower())
        total_pairs += max(0, len(words) - 1)
        pairs.update(itertools.pairwise(words))
        lines = [ln.strip() for ln in r.response.splitlines() if ln.strip()]
        lines_n += len(lines)
        repeated += len(lines) - len(set(lines))
        groups[(r.step, r.example_digest)].append(r.reward)
    multi = [g for g in groups.values() if len(g) > 1]
    n = max(len(rows), 1)
    return StepFigures(
        step=step,
        samples=len(rows),
        length=sum(len(r.response) for r in rows) / n,
        distinct_pairs=len(pairs) / total_pairs if total_pairs else 1.0,
        zero_spread=sum(max(g) - min(g) < 1e-9 for g in multi) / len(multi) if multi else None,
        repeated_lines=repeated / lines_n if lines_n else 0.0,
        unknown_words=sum(1.0 - r.subscores.get("language", 1.0) for r in rows) / n,
        dropped=sum(r.subscores.get("p_dropped", 0.0) > 0 for r in rows) / n,
        structure=sum(r.reward for r in rows) / n,
    )


def per_step(rows: Iterable[Rollout]) -> list[StepFigures]:
    """Each step's figures, over at least MIN_SAMPLES records (the step and those before it)."""
    by_step: dict[int, list[Rollout]] = defaultdict(list)
    for r in rows:
        if r.step >= 0:
            by_step[r.step].append(r)
    steps = sorted(by_step)
    out = []
    for i, step in enumerate(steps):
        window: list[Rollout] = []
        j = i
        while j >= 0 and len(window) < MIN_SAMPLES:
            window += by_step[steps[j]]
            j -= 1
        out.append(figures(step, window))
    return out


@dataclass(frozen=True)
class Wire:
    rule: str
    fired: list[int]
    message: str


def _baseline(found: list[StepFigures], size: int | None = None) -> list[StepFigures]:
    k = size or max(1, math.ceil(len(found) * BASELINE_SHARE))
    return found[:k]


def _mean(values: Iterable[float | None]) -> float | None:
    vs = [v for v in values if v is not None and math.isfinite(v)]
    return sum(vs) / len(vs) if vs else None


def _persisting(flags: list[tuple[int, bool]], persist: int = PERSIST) -> list[int]:
    out, run = [], 0
    for step, hit in flags:
        run = run + 1 if hit else 0
        if run >= persist:
            out.append(step)
    return out


def wires(
    found: list[StepFigures],
    judge: dict[int, float] | None = None,
    *,
    persist: int = PERSIST,
    baseline: int | None = None,
    judge_window: int = JUDGE_WINDOW,
) -> list[Wire]:
    """Every wire over a run's step figures; `judge` is a judge reward's mean per step (metrics).

    A run's steps are read with the defaults. Checkpoints evaluated on held-out prompts
    (`tunifolk.checkpoint_eval`) are read with `persist=1`, `baseline=1` (the reference model) and
    `judge_window=1`: each point there is a whole evaluation of many samples, not one noisy step."""
    if len(found) < persist + 1:
        return []
    base = _baseline(found, baseline)
    later = found[len(base) :]

    def wire(rule: str, value: Any, test: Any, explain: str) -> Wire:
        start = _mean(value(f) for f in base)
        flags = [
            (f.step, start is not None and value(f) is not None and test(value(f), start)) for f in later
        ]
        return Wire(
            rule,
            _persisting(flags, persist),
            explain.format(start=start if start is not None else float("nan")),
        )

    out = [
        wire("length_drift", lambda f: f.length, lambda v, s: not LENGTH_LOW * s <= v <= LENGTH_HIGH * s,
             f"response length left {{start:.0f}} chars x [{LENGTH_LOW:g}, {LENGTH_HIGH:g}]"),
        wire("diversity_collapse", lambda f: f.distinct_pairs, lambda v, s: v < DIVERSITY_DROP * s,
             f"distinct word pairs fell under {DIVERSITY_DROP:g} x the start's {{start:.2f}}"),
        wire("zero_spread", lambda f: f.zero_spread, lambda v, s: v >= ZERO_SPREAD,
             f"prompt groups with one reward for all samples reached {ZERO_SPREAD:.0%}"),
        wire("repeated_lines", lambda f: f.repeated_lines, lambda v, s: v >= s + RATE_RISE,
             f"repeated lines rose {RATE_RISE:g} over the start's {{start:.2f}}"),
        wire("unknown_words", lambda f: f.unknown_words, lambda v, s: v >= s + RATE_RISE,
             f"unknown words rose {RATE_RISE:g} over the start's {{start:.2f}}"),
        wire("dropped_text", lambda f: f.dropped, lambda v, s: v >= s + RATE_RISE,
             f"samples with text dropped before scoring rose {RATE_RISE:g} over the start's {{start:.2f}}"),
    ]  # fmt: skip
    if judge:
        steps = sorted(judge)

        def judged(step: int) -> float | None:
            return _mean(judge[s] for s in steps if step - judge_window < s <= step)

        s0, j0 = _mean(f.structure for f in base), _mean(judged(f.step) for f in base)
        flags = []
        for f in later:
            j = judged(f.step)
            hit = False
            if s0 is not None and j0 is not None and j is not None:
                hit = j0 - j >= JUDGE_FALL and (f.structure - s0) - (j - j0) >= JUDGE_GAP
            flags.append((f.step, hit))
        out.append(Wire("against_judge", _persisting(flags, persist),
                        f"the structure reward parted from the judge by {JUDGE_GAP:g} while the judge fell "
                        f"{JUDGE_FALL:g} or more"))  # fmt: skip
    return out


def steps_text(steps: list[int], limit: int = 6) -> str:
    """`12-19, 23` for [12, ..., 19, 23]: runs of consecutive steps."""
    runs: list[list[int]] = []
    for s in steps:
        if runs and s == runs[-1][-1] + 1:
            runs[-1].append(s)
        else:
            runs.append([s])
    parts = [f"{r[0]}-{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs]
    return ", ".join(parts[:limit]) + (f" (+{len(parts) - limit} more)" if len(parts) > limit else "")


def caught(ws: list[Wire]) -> list[int]:
    """The steps a run is hacking at: where the structure reward parts from the judge, or where
    HACKING_WIRES wires fire together."""
    fired = {w.rule: set(w.fired) for w in ws if w.fired}
    if not fired:
        return []
    together = {
        s for s in set().union(*fired.values()) if sum(s in v for v in fired.values()) >= HACKING_WIRES
    }
    return sorted(fired.get("against_judge", set()) | together)


def verdicts(found: list[StepFigures], judge: dict[int, float] | None = None) -> list[Verdict]:
    """One verdict per wire and the HACKING verdict, each in one line with the steps it fired on."""
    ws = wires(found, judge)
    out = [
        Verdict(f"tripwire:{w.rule}", WARN if w.fired else OK,
                f"{w.message}: fired on steps {steps_text(w.fired)}" if w.fired else f"quiet ({w.message})",
                {"first_step": float(w.fired[0])} if w.fired else {})
        for w in ws
    ]  # fmt: skip
    if not ws:
        return [Verdict(HACKING, OK, f"fewer than {PERSIST + 1} steps in the ledger: nothing to compare yet")]
    steps = caught(ws)
    if steps:
        names = ", ".join(sorted(w.rule for w in ws if w.fired))
        first = steps[0]
        message = (
            f"reward hacking: {names} fired; caught at step {first}, steps {steps_text(steps)}: "
            f"read `tunifolk rollouts --step {first} --best 3`"
        )
        return [*out, Verdict(HACKING, FAIL, message, {"caught_at_step": float(first)})]
    return [*out, Verdict(HACKING, OK, "no sign of reward hacking in the rollouts")]


def judge_rewards(job: dict[str, Any]) -> list[str]:
    """The names of the job's judge rewards (autoraters), from its reward config."""
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if "autoraterScorer" in node and isinstance(node.get("rewardName"), str):
                found.append(node["rewardName"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(job.get("reinforcementTuningSpec") or {})
    return found
