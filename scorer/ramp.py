"""The one map from a measure to the factor it multiplies, shared by the reward's table
(``score.FACTORS``) and the form's gates (``structure.Shortfall``)."""

from __future__ import annotations


def ramp(x: float, zero: float, full: float) -> float:
    """0 at ``zero``, 1 at ``full``, linear in between and clamped outside: every factor's map from
    what it measures to what it multiplies (``zero`` above ``full`` for a measure that costs as it
    grows)."""
    return min(1.0, max(0.0, (x - zero) / (full - zero)))
