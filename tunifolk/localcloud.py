"""One local base URL for every Google call the CLI and the program make offline: the Vertex emulator's
routes, and beside them the stand-ins' BigQuery (the rollout ledger), Cloud Build (the scorer image)
and read routes (`tunifolk doctor`). The emulator itself imports none of the stand-ins; this module,
above both, puts them on one server (`python -m tunifolk.emulator` serves what it builds)."""

from __future__ import annotations

from starlette.applications import Starlette

from tunifolk.emulator.app import Emulator
from tunifolk.standin import bigquery, cloudbuild, reads


def app(emulator: Emulator) -> Starlette:
    """The emulator's app with the stand-ins' routes mounted before its catch-all route."""
    project = emulator.project
    return emulator.app(
        google=[
            *bigquery.routes(),  # the rollout ledger's BigQuery stand-in
            *cloudbuild.routes(emulator.options.jobs.gcs_dir, emulator.vertex_route, project),  # image builds
            *reads.routes(project.root if project else None),  # doctor's reads of the project
        ]
    )
