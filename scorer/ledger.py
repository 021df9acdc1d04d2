"""The rollout ledger's record: one structured JSON line per scored rollout, on standard output.

Cloud Run sends every line a container writes to stdout to Cloud Logging, and a line that is a JSON
object becomes the entry's `jsonPayload`, with `severity`, `message` and
`logging.googleapis.com/labels` lifted into the entry itself (Google's "Structured logging" page for
Cloud Run). Writing the record there, flushed before the answer is sent, makes it durable through a
channel the platform keeps: stdout is collected even while the CPU is throttled between requests,
and a crash after the write cannot lose a record whose reward Vertex already has. The stack routes
these entries into BigQuery (components/ledger.py) and the CLI reads them back (tunifolk/ledger/).

This module is the ONE definition of the record's fields: the scorer writes them, the ledger's
reader, replay and the trip wires read them by these names. The scorer image installs only the
scorer, so the definition lives here, not in `tunifolk`.

No prompt text: the dataset already has it; the record keeps a digest of the example (prompt and
references) and the references themselves (form, script, stanzas, refrain), which replay needs.
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path
from typing import Any

import orjson

# --- the record's fields (jsonPayload.<name> in Cloud Logging and in the BigQuery sink's table) -----
JOB_ID = "job_id"
"""The tuning job's id, from the request's metadata under either of JOB_ID_KEYS ("" when absent)."""
JOB_ID_KEYS = ("tuning_job_id", "tuningJobId")
"""Google's two spellings of the job id in the Cloud Run reward request's `metadata`: the REST
reference of `ReinforcementTuningCloudRunRewardScorer` writes `tuning_job_id`, the reward-functions
guide `tuningJobId` (docs/google-contract.md, row RUN-03). Which one Vertex sends is unconfirmed, so
the record takes the first present, and a number or a string alike (ProtoJSON writes int64 as text)."""
STEP = "step"
"""The training step, from `metadata.step` (-1 when absent: a validation call, a probe)."""
EXAMPLE_DIGEST = "example_digest"
"""sha256 of the request's `example` (its prompt contents and references), canonical JSON: the
samples of one prompt group share it."""
REFERENCES = "references"
"""The example's references the scorer reads (form, script, stanzas, refrain), as strings."""
RESPONSE = "response"
"""The response's text as the scorer reads it (non-thought parts), cut at RESPONSE_CAP."""
TRUNCATED = "truncated"
"""True when RESPONSE was cut."""
REWARD = "reward"
SUBSCORES = "subscores"
"""The named sub-scores and penalties (`p_*`) of the reward, each a float."""
REASON = "reason"
SCORER_VERSION = "scorer_version"
"""sha256 of the scorer's sources (`version()`), so replay knows which scorer wrote a reward."""

FIELDS = (JOB_ID, STEP, EXAMPLE_DIGEST, REFERENCES, RESPONSE, TRUNCATED, REWARD, SUBSCORES, REASON,
          SCORER_VERSION)  # fmt: skip
REFERENCE_KEYS = ("form", "script", "stanzas", "refrain")
"""The references a record keeps (docs/dataset.md): all the scorer reads, no prompt text."""

LABEL_KEY = "tunifolk_record"
LABEL_VALUE = "rollout"
"""`logging.googleapis.com/labels` of every record: the log sink's filter selects on it."""
LABELS_FIELD = "logging.googleapis.com/labels"
MESSAGE = "rollout scored"

RESPONSE_CAP = 60_000
"""Characters of response kept. A Cloud Logging entry may be 256 KB (Google's quotas page); 60,000
characters of Arabic (2 bytes each in UTF-8) stay well under it, and the scorer reads only the
first 20,000 (scorer.text.MAX_CHARS) anyway."""

_SOURCES = ("*.py", "lexicon/**/*.txt")


def version(root: Path | None = None) -> str:
    """sha256 over the scorer's sources (its modules and lexicons, by relative path): what decides a
    reward. Computed once per process (`VERSION`)."""
    base = root or Path(__file__).resolve().parent
    h = hashlib.sha256()
    for pattern in _SOURCES:
        for path in sorted(base.glob(pattern)):
            h.update(path.relative_to(base).as_posix().encode() + b"\0")
            h.update(path.read_bytes())
            h.update(b"\0")
    return h.hexdigest()


VERSION = version()


def example_digest(example: Any) -> str:
    """sha256 of the example as canonical JSON (sorted keys): equal examples give equal digests."""
    try:
        blob = orjson.dumps(example, option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        blob = repr(example).encode("utf-8", "replace")
    return hashlib.sha256(blob).hexdigest()


def kept_references(refs: dict[str, Any]) -> dict[str, str]:
    """The references a record keeps, as strings."""
    return {k: str(refs[k]) for k in REFERENCE_KEYS if k in refs and refs[k] is not None}


def record(
    metadata: Any,
    example: Any,
    refs: dict[str, Any],
    text: str,
    reward: float,
    subscores: dict[str, float],
    reason: str,
) -> dict[str, Any]:
    """The record of one scored rollout, as a dict of FIELDS (pure)."""
    meta = metadata if isinstance(metadata, dict) else {}
    step = meta.get("step")
    try:
        step_no = int(step) if step is not None else -1
    except (TypeError, ValueError, OverflowError):
        step_no = -1
    if not -1 <= step_no < 2**63:  # BigQuery's INT64, and what orjson can write
        step_no = -1
    job = next((meta[k] for k in JOB_ID_KEYS if meta.get(k) not in (None, "")), "")
    return {
        JOB_ID: str(job),
        STEP: step_no,
        EXAMPLE_DIGEST: example_digest(example),
        REFERENCES: kept_references(refs),
        RESPONSE: text[:RESPONSE_CAP],
        TRUNCATED: len(text) > RESPONSE_CAP,
        REWARD: reward if math.isfinite(reward) else -1.0,
        SUBSCORES: {k: float(v) for k, v in subscores.items() if math.isfinite(v)},
        REASON: reason,
        SCORER_VERSION: VERSION,
    }


def log_line(fields: dict[str, Any]) -> bytes:
    """One Cloud Logging structured line (ends in a newline): severity, message, labels and the
    record's fields, which become the entry's jsonPayload. A string UTF-8 cannot hold (a lone
    surrogate, which JSON requests may carry) is written with that code point as a visible
    `\\udXXX` escape, so the record is still written."""
    entry = {
        "severity": "INFO",
        "message": MESSAGE,
        LABELS_FIELD: {LABEL_KEY: LABEL_VALUE},
        **fields,
    }
    try:
        return orjson.dumps(entry) + b"\n"
    except orjson.JSONEncodeError:
        return orjson.dumps(_utf8(entry)) + b"\n"


def _utf8(value: Any) -> Any:
    """`value` with every string made encodable as UTF-8 (lone surrogates backslash-escaped)."""
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, dict):
        return {_utf8(k): _utf8(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_utf8(v) for v in value]
    return value


def parse_line(line: bytes | str) -> dict[str, Any] | None:
    """The record in a stdout line, or None when the line is not one (any other output)."""
    try:
        doc = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(doc, dict) or (doc.get(LABELS_FIELD) or {}).get(LABEL_KEY) != LABEL_VALUE:
        return None
    return {k: doc.get(k) for k in FIELDS}
