"""Where the rollout ledger lives: one definition for the stack (components/ledger.py), the reader
(tunifolk/ledger/bigquery.py) and the local stand-in (tunifolk/standin/bigquery.py)."""

from __future__ import annotations

from scorer import ledger

DATASET = "tunifolk_ledger"
"""The BigQuery dataset the log sink writes to (`--dataset` changes it for the CLI)."""
TABLE = "run_googleapis_com_stdout"
"""The table a BigQuery log sink writes Cloud Run's stdout log (`run.googleapis.com/stdout`) to, with
partitioned tables (Google's "View logs routed to BigQuery": the log name, `/` and `.` as `_`)."""
RETENTION_DAYS = 30
"""How long records are kept: the dataset's default partition expiration. Long enough to compare a
run with the next one; the cost below is for storage over these days."""
SINK_FILTER = f'resource.type="cloud_run_revision" AND labels.{ledger.LABEL_KEY}="{ledger.LABEL_VALUE}"'
"""The log sink's filter (Cloud Logging query language): the scorer's ledger lines only."""
BIGQUERY_HOST = "https://bigquery.googleapis.com"
