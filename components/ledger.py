"""RolloutLedger: where the scorer's per-rollout records go, and for how long.

The scorer writes one structured JSON line per scored rollout to stdout (scorer/ledger.py); Cloud
Run hands stdout to Cloud Logging. This component routes those lines into BigQuery:

- a dataset (`tunifolk_ledger_<stack>`, `names.dataset_name`) whose partitions expire after
  `retention_days` (the retention: the sink writes one table partitioned by day, so each day's
  records are dropped together);
- a project sink (`tunifolk-rollout-ledger-<stack>`, `names.sink_name`) with the ledger's filter
  (`names.sink_filter`: this stack's scorer service's entries labelled as ledger records) and
  partitioned tables, so the records land in one table, `run_googleapis_com_stdout`, that `tunifolk
  rollouts` and `tunifolk replay` query with `jobs.query`;
- the sink's writer identity granted `roles/bigquery.dataEditor` on that dataset only (Google's
  "Route logs to supported destinations": the writer needs it to write).

Both APIs are on in every new project (Google's "Services enabled by default" lists
bigquery.googleapis.com and logging.googleapis.com), so EnabledApis need not turn them on.

Dataset ids and sink names are unique per project on Google, and two stacks may share one (dev and a
run continued from it), so both are named after the stack: each stack owns its ledger, and its
`ledger_dataset` output tells the CLI which one to read.
"""

from __future__ import annotations

import pulumi
import pulumi_gcp as gcp

from tunifolk.ledger import names

DAY_MS = 24 * 60 * 60 * 1000
WRITER_ROLE = "roles/bigquery.dataEditor"


class RolloutLedger(pulumi.ComponentResource):
    """The dataset, the sink of `service`'s records into it, and the sink's grant on it, named after
    `stack`; `dataset_id` is an output."""

    dataset: gcp.bigquery.Dataset
    sink: gcp.logging.ProjectSink

    def __init__(
        self,
        name: str,
        project: str,
        stack: str,
        service: pulumi.Input[str],
        location: str = "US",
        retention_days: int = names.RETENTION_DAYS,
        labels: dict[str, str] | None = None,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        super().__init__("tunifolk:ledger:RolloutLedger", name, None, opts)
        child = pulumi.ResourceOptions(parent=self, depends_on=opts.depends_on if opts else None)
        self.dataset = gcp.bigquery.Dataset(
            f"{name}-dataset",
            dataset_id=names.dataset_name(stack),
            project=project,
            location=location,
            description="tunifolk: every rollout the reward scorer saw (routed from Cloud Logging)",
            default_partition_expiration_ms=retention_days * DAY_MS,
            delete_contents_on_destroy=True,
            labels=labels or {},
            opts=child,
        )
        self.sink = gcp.logging.ProjectSink(
            f"{name}-sink",
            name=names.sink_name(stack),
            project=project,
            destination=self.dataset.dataset_id.apply(
                lambda d: f"bigquery.googleapis.com/projects/{project}/datasets/{d}"
            ),
            filter=pulumi.Output.from_input(service).apply(names.sink_filter),
            unique_writer_identity=True,
            bigquery_options=gcp.logging.ProjectSinkBigqueryOptionsArgs(use_partitioned_tables=True),
            opts=child,
        )
        gcp.bigquery.DatasetIamMember(
            f"{name}-writer",
            project=project,
            dataset_id=self.dataset.dataset_id,
            role=WRITER_ROLE,
            member=self.sink.writer_identity,
            opts=child,
        )
        self.dataset_id = self.dataset.dataset_id
        self.register_outputs({"dataset_id": self.dataset_id})
