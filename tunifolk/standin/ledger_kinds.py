"""The rollout ledger's resources in the stand-in: a BigQuery dataset, a Cloud Logging project sink
into it, and the sink writer's grant on the dataset (components/ledger.py).

Names, required fields and ForceNew properties follow pulumi-gcp's schema (`gcp:bigquery/dataset`,
`gcp:logging/projectSink`, `gcp:bigquery/datasetIamMember`). The records are kept; what they route
is served by the BigQuery stand-in (tunifolk/standin/bigquery.py), which reads the Cloud Run
services' captured output as the sink's table.
"""

from __future__ import annotations

import re
from typing import Any

from tunifolk.job.names import local_project_number as project_number
from tunifolk.job.wire import UNKNOWN
from tunifolk.ledger.names import DATASET_RE, SINK_RE
from tunifolk.standin.kind import Context, IamMemberKind, Kind, StandInError, now

DESTINATION_RE = re.compile(r"^bigquery\.googleapis\.com/projects/[^/]+/datasets/[A-Za-z0-9_]+$")


class Dataset(Kind):
    token = "gcp:bigquery/dataset:Dataset"
    required = ("datasetId",)
    force_new = ("datasetId", "project", "location")
    labelled = True

    def validate(self, ctx: Context, inputs: dict[str, Any]) -> list[tuple[str, str]]:
        ident = inputs.get("datasetId")
        if isinstance(ident, str) and ident != UNKNOWN and not DATASET_RE.match(ident):
            return [("datasetId", f"{ident!r}: a dataset ID is letters, digits and underscores only")]
        return []

    def id_of(self, ctx: Context, inputs: dict[str, Any]) -> str:
        return f"projects/{inputs['project']}/datasets/{inputs['datasetId']}"

    def outputs(self, ctx: Context, inputs: dict[str, Any], preview: bool) -> dict[str, Any]:
        out = super().outputs(ctx, inputs, preview)
        out.setdefault("location", "US")  # BigQuery's default location
        out.setdefault("deleteContentsOnDestroy", False)
        stamp = UNKNOWN if preview else now()
        out.update(
            selfLink=f"https://bigquery.googleapis.com/bigquery/v2/{self.id_of(ctx, inputs)}",
            creationTime=stamp,
            lastModifiedTime=stamp,
            etag=UNKNOWN if preview else "stand-in",
        )
        return out


class ProjectSink(Kind):
    token = "gcp:logging/projectSink:ProjectSink"
    required = ("name", "destination")
    force_new = ("name", "project", "uniqueWriterIdentity")

    def validate(self, ctx: Context, inputs: dict[str, Any]) -> list[tuple[str, str]]:
        out = []
        name, dest = inputs.get("name"), inputs.get("destination")
        if isinstance(name, str) and name != UNKNOWN and not SINK_RE.match(name):
            why = "a sink name is up to 100 of letters, digits, '_', '-', '.', the first a letter or digit"
            out.append(("name", f"{name!r}: {why}"))
        if isinstance(dest, str) and dest != UNKNOWN and not DESTINATION_RE.match(dest):
            out.append(
                (
                    "destination",
                    f"{dest!r}: the stand-in routes to bigquery.googleapis.com/projects/P/datasets/D",
                )
            )
        return out

    def id_of(self, ctx: Context, inputs: dict[str, Any]) -> str:
        return f"projects/{inputs['project']}/sinks/{inputs['name']}"

    def outputs(self, ctx: Context, inputs: dict[str, Any], preview: bool) -> dict[str, Any]:
        out = super().outputs(ctx, inputs, preview)
        out.setdefault("uniqueWriterIdentity", True)  # pulumi-gcp's default
        number = UNKNOWN if preview else project_number(inputs["project"])
        # A unique writer is a service account of Cloud Logging's (UNCONFIRMED: the exact address
        # form; Google documents `serviceAccount:service-N@gcp-sa-logging.iam.gserviceaccount.com`).
        out["writerIdentity"] = (
            UNKNOWN if preview else f"serviceAccount:service-{number}@gcp-sa-logging.iam.gserviceaccount.com"
        )
        return out

    def before_create(self, ctx: Context, inputs: dict[str, Any]) -> None:
        dest = str(inputs.get("destination", ""))
        dataset = dest.removeprefix("bigquery.googleapis.com/")
        if ctx.store.get(Dataset.token, dataset) is None:
            raise StandInError(f"googleapi: Error 404: Dataset {dataset} not found (the sink's destination)")


class DatasetIamMember(IamMemberKind):
    token = "gcp:bigquery/datasetIamMember:DatasetIamMember"
    required = ("datasetId", "role", "member")
    force_new = ("datasetId", "project", "role", "member", "condition")

    def id_of(self, ctx: Context, inputs: dict[str, Any]) -> str:
        dataset = f"projects/{inputs['project']}/datasets/{inputs['datasetId']}"
        return f"{dataset}/{inputs['role']}/{inputs['member']}"

    def refuse(self, ctx: Context, inputs: dict[str, Any]) -> None:
        """The sink's writer is Cloud Logging's agent, which exists once a sink does (UNCONFIRMED in a
        fresh project): only the checks every resource has."""
        Kind.refuse(self, ctx, inputs)
