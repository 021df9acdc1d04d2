"""A local STAND-IN for the slice of Google Cloud the tunifolk stack uses, served to the Pulumi engine as
the `gcp` resource plugin (`pulumi-resource-gcp`).

It is not Google Cloud and not the real pulumi-gcp provider: it keeps its resources as JSON files on
disk, writes bucket objects where the Vertex emulator reads `gs://` URIs, and runs each Cloud Run
service as a real local reward scorer (`python -m scorer`). It answers with outputs shaped like
Google's and refuses what Google would refuse where that is cheap to check (names, required fields),
so `pulumi preview|up|refresh|destroy` can run the whole program offline. It never contacts a Google
host: the `googleapis.com` URLs in its outputs are only strings.

Where things live (environment variables, else defaults under the repository's `build/`):
- `TUNIFOLK_STANDIN_DIR` (build/standin): the resource records, scorer pid files and logs;
- `TUNIFOLK_GCS_DIR` (build/gcs): `gs://BUCKET/PATH` is the file `DIR/BUCKET/PATH`, as for the
  emulator's `--gcs-dir`.
"""

from __future__ import annotations

import os
from pathlib import Path

from tunifolk.paths import ROOT

STATE_ENV = "TUNIFOLK_STANDIN_DIR"
GCS_ENV = "TUNIFOLK_GCS_DIR"
LEDGER_ENV = "TUNIFOLK_LEDGER_DIRS"
"""The BigQuery stand-in's ledger folders (tunifolk/standin/bigquery.py, `DIRS_ENV`): named here, in
the light module, so the CLI's `demo` sets it without importing the SQL engine."""
VERSION = "10.2.0+tunifolk.standin"
"""The pulumi-gcp SDK version the program pins, so the engine does not warn that the plugin is older
than the SDK asks for; the build metadata (ignored when versions are compared) says what it is."""


def state_dir() -> Path:
    """Where the stand-in keeps its records (absolute, so every process agrees whatever its cwd)."""
    return Path(os.environ.get(STATE_ENV) or ROOT / "build" / "standin").resolve()


def gcs_dir() -> Path:
    """The directory that plays Cloud Storage: `gs://B/P` is `gcs_dir()/B/P`."""
    return Path(os.environ.get(GCS_ENV) or ROOT / "build" / "gcs").resolve()
