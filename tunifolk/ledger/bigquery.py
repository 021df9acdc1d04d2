"""Read the rollout ledger with BigQuery's `jobs.query` (REST v2), on Google or on the local stand-in.

One code path: the URL is `https://bigquery.googleapis.com/bigquery/v2/projects/P/queries`, or the
same path under `TUNIFOLK_VERTEX_ENDPOINT` when it is set (the local emulator serves the BigQuery
stand-in beside Vertex, tunifolk/standin/bigquery.py). Requests go through `VertexClient.request`,
so the credentials rule is the client's: a token only to `https://*.googleapis.com`, none to
loopback; retries and one-line errors are the same too.

The SQL is the subset GoogleSQL and DuckDB read alike: the table is named through `defaultDataset`,
parameters are positional `?`, sharding is `MOD(step, N) = i`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from scorer import ledger
from tunifolk.errors import TunifolkError, UsageError, VertexError
from tunifolk.job import names as job_names
from tunifolk.ledger import names
from tunifolk.vertex import VertexClient

DATASET_ID = re.compile(r"[A-Za-z0-9_]{1,1024}", re.ASCII)
"""A BigQuery dataset ID (the datasets reference: letters, digits and underscores, up to 1,024)."""
PAGE_ROWS = 20_000
INSERT_BATCH = 500
"""Rows per `tabledata.insertAll` request: BigQuery's streaming-insert guidance is at most 500."""
LIGHT = (ledger.JOB_ID, ledger.STEP, ledger.EXAMPLE_DIGEST, ledger.REFERENCES, ledger.RESPONSE, ledger.REWARD,
         ledger.REASON)  # fmt: skip
"""The fields replay reads."""
_ALIAS = {ledger.REFERENCES: "refs"}
"""Output names that are not SQL keywords (REFERENCES is one in DuckDB)."""


@dataclass(slots=True)
class Rollout:
    """One record of the ledger (scorer/ledger.py's fields)."""

    job_id: str
    step: int
    example_digest: str
    references: dict[str, str]
    response: str
    reward: float
    subscores: dict[str, float] = field(default_factory=dict)
    reason: str = ""
    scorer_version: str = ""
    truncated: bool = False

    @property
    def form(self) -> str:
        return self.references.get("form", "")

    @classmethod
    def from_payload(cls, p: dict[str, Any]) -> Rollout:
        return cls(
            job_id=p.get(ledger.JOB_ID) or "",
            step=int(p.get(ledger.STEP) if p.get(ledger.STEP) is not None else -1),
            example_digest=p.get(ledger.EXAMPLE_DIGEST) or "",
            references={k: v for k, v in (p.get(ledger.REFERENCES) or {}).items() if v is not None},
            response=p.get(ledger.RESPONSE) or "",
            reward=float(p.get(ledger.REWARD) if p.get(ledger.REWARD) is not None else -1.0),
            subscores={k: v for k, v in (p.get(ledger.SUBSCORES) or {}).items() if v is not None},
            reason=p.get(ledger.REASON) or "",
            scorer_version=p.get(ledger.SCORER_VERSION) or "",
            truncated=bool(p.get(ledger.TRUNCATED)),
        )

    def as_json(self) -> dict[str, Any]:
        return {
            ledger.JOB_ID: self.job_id,
            ledger.STEP: self.step,
            ledger.EXAMPLE_DIGEST: self.example_digest,
            ledger.REFERENCES: self.references,
            ledger.RESPONSE: self.response,
            ledger.TRUNCATED: self.truncated,
            ledger.REWARD: self.reward,
            ledger.SUBSCORES: self.subscores,
            ledger.REASON: self.reason,
            ledger.SCORER_VERSION: self.scorer_version,
        }


def decoder(f: dict[str, Any]) -> Callable[[Any], Any]:
    """A function from a row cell's `v` to Python, by its TableFieldSchema (numbers come as strings);
    built once per column, since a ledger answer has millions of cells."""
    if f.get("mode") == "REPEATED":
        one = decoder({**f, "mode": "NULLABLE"})
        return lambda value: [one(c.get("v")) for c in value or []]
    kind = f.get("type")
    if kind == "RECORD":
        subs = [(sub["name"], decoder(sub)) for sub in f["fields"]]
        return lambda value: (
            None if value is None else {n: d(c["v"]) for (n, d), c in zip(subs, value["f"], strict=True)}
        )
    scalar: Callable[[Any], Any] = str
    if kind in ("INTEGER", "INT64"):
        scalar = int
    elif kind in ("FLOAT", "FLOAT64", "NUMERIC"):
        scalar = float
    elif kind in ("BOOLEAN", "BOOL"):
        scalar = "true".__eq__
    return lambda value: None if value is None else scalar(value)


def decode(value: Any, f: dict[str, Any]) -> Any:
    """One cell's `v` as Python."""
    return decoder(f)(value)


def _param(value: Any) -> dict[str, Any]:
    kind = "INT64" if isinstance(value, int) and not isinstance(value, bool) else "STRING"
    return {"parameterType": {"type": kind}, "parameterValue": {"value": str(value)}}


class LedgerMissing(TunifolkError):
    """jobs.query's 404 `notFound`: the ledger's dataset (or its table) is not in the project. On one
    line, naming the fix: `pulumi up` makes a stack's dataset, `--stack`/`--dataset` name another."""

    def __init__(self, project: str, dataset: str, why: str) -> None:
        super().__init__(
            f"no rollout ledger {project}:{dataset} ({why}): `pulumi up` on the stack creates its dataset; "
            "for another stack's ledger pass --stack NAME (or --dataset DATASET)"
        )


class LedgerReader:
    """Queries over the ledger of one project and dataset (a stack's `ledger_dataset` output, or
    `names.dataset_name(stack)`)."""

    def __init__(
        self,
        project: str,
        dataset: str,
        client: VertexClient | None = None,
        page_rows: int = PAGE_ROWS,
    ) -> None:
        problem = job_names.name_problem(f"{job_names.PROJECTS}/{project}", "project")
        if problem:
            raise UsageError(f"--project: {problem}: give a project ID or number")
        if not DATASET_ID.fullmatch(dataset):
            raise UsageError(f"--dataset: {dataset!r} is not a BigQuery dataset ID (letters, digits and _)")
        self.project, self.dataset, self.page_rows = project, dataset, page_rows
        self.client = client or VertexClient()
        self.base = f"{self.client.endpoint or names.BIGQUERY_HOST}/bigquery/v2/projects/{project}/queries"

    def request_body(self, sql: str, *params: Any) -> dict[str, Any]:
        """The QueryRequest for `sql` and its positional parameters."""
        return {
            "query": sql,
            "useLegacySql": False,
            "defaultDataset": {"projectId": self.project, "datasetId": self.dataset},
            "parameterMode": "POSITIONAL",
            "queryParameters": [_param(p) for p in params],
            "maxResults": self.page_rows,
            "timeoutMs": 60_000,
        }

    def rows(self, sql: str, *params: Any) -> Iterator[dict[str, Any]]:
        """Run `sql` (GoogleSQL; `?` parameters) and yield each row as a dict, page after page."""
        body = self.request_body(sql, *params)
        try:
            page = self.client.request("POST", self.base, body=body, idempotent=False)
        except VertexError as exc:
            if not exc.not_found:
                raise
            raise self._missing(exc.message) from None
        job = (page.get("jobReference") or {}).get("jobId", "")
        while True:
            fields = (page.get("schema") or {}).get("fields") or []
            cols = [(f["name"], decoder(f)) for f in fields]
            for row in page.get("rows") or []:
                yield {n: d(c["v"]) for (n, d), c in zip(cols, row["f"], strict=True)}
            token = page.get("pageToken")
            if not token and page.get("jobComplete", True):
                return
            params_q = {"maxResults": self.page_rows, "timeoutMs": body["timeoutMs"]}
            params_q.update({"pageToken": token} if token else {})
            page = self.client.request("GET", f"{self.base}/{job}", params=params_q)

    def _missing(self, why: str) -> TunifolkError:
        """What a 404 from jobs.query means: the dataset is missing (`pulumi up` makes it), or it
        exists and the sink has not made its table yet, which it does with the first record it
        routes (datasets.get tells the two apart, not the message's words)."""
        try:
            self.client.request("GET", self.base.rsplit("/", 1)[0] + f"/datasets/{self.dataset}")
        except VertexError as exc:
            if exc.not_found:
                return LedgerMissing(self.project, self.dataset, why)
            raise
        return TunifolkError(
            f"the rollout ledger {self.project}:{self.dataset} holds no records yet: its log sink makes the "
            "table with the first rollout the scorer records, at the job's first scored step (allow a "
            "few minutes for routing); run this again then"
        )

    def rollouts(
        self,
        job: str,
        step: int | None = None,
        form: str | None = None,
        shard: tuple[int, int] | None = None,
        steps: tuple[int, int] | None = None,
        light: bool = False,
        label: str = ledger.LABEL_VALUE,
    ) -> list[Rollout]:
        """The job's records (one step, a range of steps, one form, one shard of steps (i of N) when
        asked), in step order. `light` leaves the sub-scores out (what replay needs is a third of a
        record's cells). `label` picks the training rollouts (the scorer's records) or the samples
        `tunifolk eval` drew from checkpoints (`names.EVAL_LABEL`, their step the checkpoint's)."""
        where, params = [f"labels.{ledger.LABEL_KEY} = ?", "jsonPayload.job_id = ?"], [label, job]
        if step is not None:
            where.append("jsonPayload.step = ?")
            params.append(step)
        if form:
            where.append("jsonPayload.references.form = ?")
            params.append(form)
        if steps is not None:
            where.append("jsonPayload.step BETWEEN ? AND ?")
            params += [steps[0], steps[1]]
        if shard is not None:
            where.append("MOD(CAST(jsonPayload.step AS INT64), ?) = ?")  # the sink types step FLOAT64
            params += [shard[1], shard[0]]
        if not light:
            sql = (
                f"SELECT jsonPayload FROM {names.TABLE} WHERE {' AND '.join(where)} ORDER BY jsonPayload.step"
            )
            return [Rollout.from_payload(r["jsonPayload"]) for r in self.rows(sql, *params)]
        picked = ", ".join(f"jsonPayload.{f} AS {_ALIAS.get(f, f)}" for f in LIGHT)
        sql = f"SELECT {picked} FROM {names.TABLE} WHERE {' AND '.join(where)} ORDER BY jsonPayload.step"
        back = {_ALIAS.get(f, f): f for f in LIGHT}
        return [Rollout.from_payload({back[k]: v for k, v in r.items()}) for r in self.rows(sql, *params)]

    def steps(self, job: str, label: str = ledger.LABEL_VALUE) -> list[tuple[int, int]]:
        """(step, records) of every step the job's ledger holds (of the records under `label`)."""
        sql = (
            f"SELECT jsonPayload.step AS step, COUNT(*) AS n FROM {names.TABLE} "
            f"WHERE labels.{ledger.LABEL_KEY} = ? AND jsonPayload.job_id = ? "
            "GROUP BY jsonPayload.step ORDER BY step"
        )
        return [(int(r["step"]), int(r["n"])) for r in self.rows(sql, label, job)]

    def insert(self, records: list[dict[str, Any]], label: str, batch: int = INSERT_BATCH) -> int:
        """Add `records` (scorer/ledger.py's fields) to the ledger's table under `label`, with
        `tabledata.insertAll`, as the log sink's rows look (labels, severity, jsonPayload): the readers
        above find them by that label. Each row carries an insertId, so a retried request adds nothing
        twice. Returns the rows written; a refused row raises, naming the first reason."""
        url = f"{self.base.rsplit('/', 1)[0]}/datasets/{self.dataset}/tables/{names.TABLE}/insertAll"
        now = datetime.now(UTC).isoformat()
        written = 0
        for start in range(0, len(records), batch):
            chunk = records[start : start + batch]
            rows = [
                {
                    "insertId": ledger.example_digest([label, r])[:32],
                    "json": {
                        "timestamp": now,
                        "severity": "INFO",
                        "labels": {ledger.LABEL_KEY: label},
                        "jsonPayload": {"message": names.EVAL_MESSAGE, **r},
                    },
                }
                for r in chunk
            ]
            body = {"kind": "bigquery#tableDataInsertAllRequest", "rows": rows}
            try:
                answer = self.client.request("POST", url, body=body)
            except VertexError as exc:
                if exc.not_found:
                    raise self._missing(exc.message) from None
                raise
            errors = answer.get("insertErrors") or []
            if errors:
                first = ((errors[0].get("errors") or [{}])[0]).get("message", "no reason given")
                raise TunifolkError(
                    f"the ledger {self.project}:{self.dataset} refused {len(errors)} of {len(rows)} "
                    f"rows: {first}"
                )
            written += len(rows)
        return written
