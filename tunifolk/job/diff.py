"""The diff policy: which input changes replace the job and which update it in place.

Only a change to a field whose role is `SHAPES` (it changes what Vertex trains) replaces the job;
the others update in place (docs/vertex.md, "Lifecycle"). The roles are in the field table.
"""

from __future__ import annotations

from typing import Any

from tunifolk.job.fields import IN_PLACE, INPUT_NAMES
from tunifolk.job.normalize import normalize
from tunifolk.job.wire import contains_unknown


def comparable(inputs: dict[str, Any]) -> dict[str, Any]:
    """The inputs only (outputs stored beside them in state never count), normalised."""
    return normalize({k: v for k, v in inputs.items() if k in INPUT_NAMES})


def diff_decision(olds: dict[str, Any], news: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(changed input names, those that force a new job), compared on normalised values.

    An unknown new value counts as a change: on a field that shapes the job that means a
    replacement at preview, which is the truth if it turns out new.
    """
    old, new = comparable(olds), comparable(news)
    changed = sorted(
        k for k in old.keys() | new.keys() if old.get(k) != new.get(k) or contains_unknown(new.get(k))
    )
    return changed, [k for k in changed if k not in IN_PLACE]
