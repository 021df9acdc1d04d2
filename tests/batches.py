"""A property of a corpus runs as one test per batch of cases; every case is checked.

A corpus property (one blank line forgotten is free, a closing line is not the poem) holds for each
of some two thousand poems. As one pytest item per poem, the items cost more than the checks: each
item is set up, timed and reported to pytest-xdist's controller, about 1.3 ms of CPU, and eleven
thousand of them were a quarter of ``make test-fast``. A batch runs its cases in one item and fails
with every case that broke, named, each with its message, so nothing a per-case item said is lost.

`make test-fast`, the edit loop, checks every other batch (half of each corpus, the same half every
run: the batches at even places); the others are marked slow, so `make test` checks every case.

A case that is known to break (an entry of `misses`, with its reason) is what an ``xfail(strict=True)``
was: the batch fails if it breaks no more, so the entry leaves when its fix lands.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

BATCH = 40
"""Cases per item: big enough that an item's bookkeeping is small beside its checks, small enough that
the xdist workers still share the work evenly."""


def _first(case: Any) -> str:
    return case[0]


def each(
    argnames: str,
    cases: Sequence[Any],
    *,
    misses: Mapping[str, str] | None = None,
    name: Callable[[Any], str] = _first,
    size: int = BATCH,
) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Turn ``check(<argnames>, **others)``, written for one case, into a test parametrized by batches
    of `cases`. `argnames` are the check's parameters one case fills (comma-separated, as
    ``pytest.mark.parametrize`` takes them; a case is a tuple of them, or the value itself for one
    name). Its other parameters stay the test's: fixtures and other parametrizations. `name` gives a
    case's id (its first item by default); `misses` maps the ids of cases known to break to why."""

    names = [n.strip() for n in argnames.split(",")]
    misses = dict(misses or {})
    ids = [name(case) for case in cases]
    unknown = sorted(set(misses) - set(ids))
    if unknown:
        raise ValueError(f"misses name cases the corpus does not hold: {unknown}")
    pairs = list(zip(ids, cases, strict=True))
    batches = [
        pytest.param(
            pairs[i : i + size],
            id=f"{pairs[i][0]}..{pairs[i : i + size][-1][0]}",
            marks=[pytest.mark.slow] if (i // size) % 2 else [],
        )
        for i in range(0, len(pairs), size)
    ]

    def decorate(check: Callable[..., None]) -> Callable[..., None]:
        signature = inspect.signature(check)
        others = [p for p in signature.parameters.values() if p.name not in names]

        def test(batch: list[tuple[str, Any]], **kwargs: Any) -> None:
            broke: dict[str, str] = {}
            skipped = 0
            for case_id, case in batch:
                values = dict(zip(names, case, strict=True)) if len(names) > 1 else {names[0]: case}
                try:
                    check(**values, **kwargs)
                except pytest.skip.Exception:
                    skipped += 1
                except Exception as exc:  # every case's failure is reported, by name
                    broke[case_id] = f"{type(exc).__name__}: {exc}".strip()
            report = [f"{i}: {why}" for i, why in broke.items() if i not in misses]
            report += [
                f"{i}: holds now; remove it from the known misses ({misses[i]})"
                for i, _ in batch
                if i in misses and i not in broke
            ]
            if report:
                pytest.fail(f"{len(report)} of {len(batch)} cases:\n" + "\n".join(report), pytrace=False)
            if skipped == len(batch):
                pytest.skip("every case of the batch skipped")

        test.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=[inspect.Parameter("batch", inspect.Parameter.POSITIONAL_OR_KEYWORD), *others]
        )
        test.__name__, test.__qualname__, test.__doc__ = check.__name__, check.__qualname__, check.__doc__
        test.__module__ = check.__module__
        test.pytestmark = list(getattr(check, "pytestmark", []))  # type: ignore[attr-defined]
        return pytest.mark.parametrize("batch", batches)(test)

    return decorate
