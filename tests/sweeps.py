"""Agreement tests run on a fixed, seeded sample; the full sweep stays one marker away.

A test that proves two implementations agree (two hash salts, a fast path and the plain formulation
it replaced) guards code that changes rarely and needs no thousands of cases on every edit. Each
such test is two tests: ``[sample]`` runs a fixed, seeded sample of the cases (the same cases every
run, so a failure reproduces) and is part of ``make test-fast``; ``[full]`` runs every case and is
marked slow, so ``make test`` runs it. Both assert the same agreement on each case they run: a
disagreement on the sample fails ``[sample]``, one anywhere fails ``[full]``.

Only the full sweeps: ``pytest -m slow -k full tests/test_scorer_hash_order.py
tests/test_scorer_fastpaths.py tests/test_scorer_linear.py``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

SEED = 36
"""The sample's seed (issue 36, "tests in minutes"): fixed, so every run samples the same cases."""

SWEEP = pytest.mark.parametrize(
    "full", [pytest.param(False, id="sample"), pytest.param(True, id="full", marks=pytest.mark.slow)]
)
"""Parametrizes a test's ``full`` argument: False for ``[sample]``, True for ``[full]`` (slow)."""


def sample(n: int, k: int, *, full: bool) -> list[int]:
    """Indices into n cases, ascending: all of them for the full sweep, else k drawn with `SEED`."""
    if full or k >= n:
        return list(range(n))
    return sorted(random.Random(SEED).sample(range(n), k))


def sampled_given(*, sample: int, full: int, **strategies: SearchStrategy[Any]) -> Callable[..., Any]:
    """``@given(**strategies)`` as two tests: ``[sample]`` draws `sample` examples, ``[full]`` (marked
    slow) draws `full`. Derandomized, as the property tests of the scorer are: the same examples every
    run, and a failure names its falsifying example as ``@given`` does."""

    from hypothesis import given, settings  # here: a module that only samples cases needs none

    examples = {False: sample, True: full}

    def decorate(body: Callable[..., None]) -> Callable[[bool], None]:
        @SWEEP
        def test(full: bool) -> None:
            props = settings(deadline=None, derandomize=True, max_examples=examples[full])
            props(given(**strategies)(body))()

        test.__name__, test.__qualname__, test.__doc__ = body.__name__, body.__qualname__, body.__doc__
        test.__module__ = body.__module__
        return test

    return decorate
