"""A smaller, seeded version of `make fuzz`: no 5xx and no non-finite reward, ever."""

from __future__ import annotations

import pytest

from bench.fuzz_scorer import run

pytestmark = pytest.mark.slow  # it starts a scorer process


def test_fuzz_500_seeded_requests() -> None:
    res = run(500, seed=7)
    assert res["5xx"] == 0, res
    assert res["non_finite"] == 0, res
    assert sum(res["statuses"].values()) == 500
