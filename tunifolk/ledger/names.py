"""Where the rollout ledger lives: one definition for the stack (components/ledger.py), the reader
(tunifolk/ledger/bigquery.py), the CLI's fallback when no stack output says (tunifolk/cli/context.py)
and the local stand-in (tunifolk/standin/bigquery.py, tunifolk/standin/ledger_kinds.py).

A dataset id and a sink name are unique per project on Google, and two stacks may share a project
(dev and a run continued from it): each stack owns its ledger, named after the stack.
"""

from __future__ import annotations

import hashlib
import re

from scorer import ledger

DATASET_PREFIX = "tunifolk_ledger_"
SINK_PREFIX = "tunifolk-rollout-ledger-"
DATASET_RE = re.compile(r"^[A-Za-z0-9_]{1,1024}$")
"""BigQuery v2 `DatasetReference.datasetId`: "only letters (a-z, A-Z), numbers (0-9), or underscores
(_). The maximum length is 1,024 characters." """
SINK_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")
"""Cloud Logging v2 `LogSink.name`: "limited to 100 characters and can include only ... upper and
lower-case alphanumeric characters, underscores, hyphens, periods. First character has to be
alphanumeric." """
DIGEST_CHARS = 8
"""Hex digits of sha256(stack) appended when the stack's name had to be changed to fit: `a-b` and
`a_b` are two stacks, and must not share a dataset."""
TABLE = "run_googleapis_com_stdout"
"""The table a BigQuery log sink writes Cloud Run's stdout log (`run.googleapis.com/stdout`) to, with
partitioned tables (Google's "View logs routed to BigQuery": the log name, `/` and `.` as `_`)."""
RETENTION_DAYS = 30
"""How long records are kept: the dataset's default partition expiration. Long enough to compare a
run with the next one; the cost below is for storage over these days."""
BIGQUERY_HOST = "https://bigquery.googleapis.com"
EVAL_LABEL = "eval"
"""The label (`labels.tunifolk_record`) of the samples `tunifolk eval` draws from checkpoints and adds
to the ledger's table: the scorer's own records carry `scorer.ledger.LABEL_VALUE`."""
EVAL_MESSAGE = "checkpoint sample scored"
LABELS = (ledger.LABEL_VALUE, EVAL_LABEL)
"""Every label the ledger's table holds rows under."""


def _digest(stack: str) -> str:
    return hashlib.sha256(stack.encode()).hexdigest()[:DIGEST_CHARS]


def dataset_name(stack: str) -> str:
    """The ledger's BigQuery dataset id for a Pulumi stack: `tunifolk_ledger_<stack>`, with every
    character a dataset id cannot hold as `_` and then a digest of the true name (stack names may hold
    `-` and `.`), so two stacks never share one."""
    safe = re.sub(r"[^A-Za-z0-9_]", "_", stack)
    name = DATASET_PREFIX + safe + ("" if safe == stack else f"_{_digest(stack)}")
    assert DATASET_RE.match(name), name  # a Pulumi stack name is at most 100 characters
    return name


def sink_name(stack: str) -> str:
    """The ledger's log sink name for a Pulumi stack: `tunifolk-rollout-ledger-<stack>`, cut to the
    100 characters a sink name may have with a digest of the stack's name at the end when it is cut
    or a character had to be replaced."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "-", stack)
    name = SINK_PREFIX + safe
    if safe != stack or not SINK_RE.match(name):
        name = f"{name[: 100 - DIGEST_CHARS - 1]}-{_digest(stack)}"
    assert SINK_RE.match(name), name
    return name


def sink_filter(service: str) -> str:
    """The log sink's filter (Cloud Logging query language): the ledger lines of one Cloud Run
    service, the stack's scorer (`resource.labels.service_name` is a `cloud_run_revision` entry's
    service), so a stack's dataset holds only its own scorer's records."""
    return (
        f'resource.type="cloud_run_revision" AND resource.labels.service_name="{service}" '
        f'AND labels.{ledger.LABEL_KEY}="{ledger.LABEL_VALUE}"'
    )
