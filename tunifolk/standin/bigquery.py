"""A stand-in for BigQuery's `jobs.query` and `jobs.getQueryResults` over the rollout ledger, on DuckDB.

On Google Cloud the scorer's stdout lines reach Cloud Logging, and the stack's log sink
(components/ledger.py) routes the ledger's records into a BigQuery dataset, where Cloud Logging
writes the Cloud Run stdout log `run.googleapis.com/stdout` to the table `run_googleapis_com_stdout`
(with `bigqueryOptions.usePartitionedTables`, no date suffix; Google's "View logs routed to
BigQuery" page); the CLI reads it with `jobs.query` (tunifolk/ledger/bigquery.py).

Here the same requests are answered from the scorers' captured standard output: every `*.stdout`
and `*.log` file in the ledger directories (`TUNIFOLK_LEDGER_DIRS`, paths joined by `:`; by default
the gcp stand-in's Cloud Run services under `<state>/run/`, whose logs hold stdout and stderr
together, as the demo's scorer output does). The Vertex emulator serves these routes beside its own
(`routes()`), so one local base URL answers every call the CLI makes. Lines that are ledger records
(their label is the sink's filter, `scorer.ledger.LABEL_KEY`) become the table's rows, loaded by
DuckDB's own JSON reader, and the query's SQL runs on DuckDB as sent: a real engine, not a
home-made one. The SQL the CLI sends is
the subset both dialects read alike (standard SELECT, WHERE, GROUP BY, ORDER BY, LIMIT, MOD,
positional `?` parameters, a table named through `defaultDataset`).

The SQL runs on a connection that can read the ledger's table and nothing else: one SELECT (a
statement of another kind, several statements, a table function or another table are refused as
`invalidQuery` before anything runs), on a read-only copy of the table, with file access, extensions
and attached databases switched off and locked, a memory limit and a hard time limit. BigQuery runs
any GoogleSQL the caller may run; the stand-in runs only the ledger's reads (docs/google-contract.md,
rows BQ-*).

What is imitated, with its source (the BigQuery v2 REST reference):
- `POST /bigquery/v2/projects/{projectId}/queries` with a QueryRequest; `useLegacySql` defaults to
  true there, and legacy SQL is refused here (400 invalidQuery) rather than emulated;
- the answer's `schema` (RECORD, REPEATED, INTEGER, FLOAT, STRING, BOOLEAN) and its rows as
  `{"f": [{"v": ...}]}` with numbers as strings, `totalRows` a string, `jobComplete` true;
- pages: `maxResults` rows at most, and never much over 10 MB of rows (BigQuery's cap on a
  response); `pageToken` and `GET .../queries/{jobId}` (getQueryResults) give the rest.
- `timeoutMs` (default 10 s): a query still running then is answered `jobComplete: false` with its
  `jobReference`, and getQueryResults waits its own `timeoutMs` for it (the jobs.query reference).
  A query stops at JOB_LIMIT_S and at MAX_ROWS rows (`responseTooLarge`): the stand-in's own
  limits, far under BigQuery's (UNCONFIRMED that BigQuery refuses by rows; it caps a response's bytes).
- A query without `defaultDataset` names a table with no dataset: 400 `invalid`, as BigQuery does.
- The sink types a JSON number as FLOAT64 (`jsonPayload.step` included; Logging's "BigQuery schema
  of routed logs" page), so the table's `step` column is FLOAT here too: `MOD` needs a CAST.
- The sink creates its table when it routes the first record (Logging's routing page): before that
  a query is BigQuery's 404 `notFound` for the table, and `GET .../datasets/{d}` answers whether
  the dataset itself exists.
- The sink's schema for jsonPayload.subscores: a RECORD of every sub-score name seen (the sink adds a
  column per new field). UNCONFIRMED: which table rows a sink has written before a query (here:
  every record written so far, as if routing were instant).
- `POST .../datasets/{d}/tables/{t}/insertAll` (tabledata.insertAll, how `tunifolk eval` adds its
  samples under their own label): rows are `{"insertId", "json"}`; the table must exist (404
  `notFound` before the sink's first record); a row with a field the table lacks is BigQuery's
  `insertErrors` entry with reason `invalid`, and without `skipInvalidRows` the other rows are
  `stopped`, not written. The table holds the rows of both labels (`names.LABELS`); the readers pick
  one. UNCONFIRMED: that a sink's table takes streamed rows beside the sink's own (it is an
  ordinary table to BigQuery; no Logging page says either way).
- Datasets, on the local stack (the gcp stand-in's records, `TUNIFOLK_STANDIN_DIR`): `defaultDataset`
  names a dataset that must exist, a `gcp:bigquery/dataset:Dataset` record of the stand-in (its
  project by ID or number); any other is BigQuery's 404 `notFound` (the error-messages page: "a
  resource (a dataset, a table, or a job) that doesn't exist"; the message, "Not found: Dataset
  P:D was not found in location L", UNCONFIRMED word for word). Its table holds only what the sinks
  into it route: the records of the Cloud Run services their filters name
  (`resource.labels.service_name`, `names.sink_filter`'s form), so a stack reads its own scorer's
  records and not another stack's. A dataset no record was routed to has no table yet. With
  `TUNIFOLK_LEDGER_DIRS` set (the demo and the emulator-only flow, where no stack made a dataset)
  every dataset name answers every record of those directories.
"""

from __future__ import annotations

import functools
import json
import multiprocessing
import os
import re
import resource
import secrets
import shutil
import tempfile
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import duckdb
import orjson
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from scorer import ledger
from tunifolk import standin
from tunifolk.job.names import local_project_number
from tunifolk.ledger import names
from tunifolk.standin import LEDGER_ENV, cloudrun
from tunifolk.standin.ledger_kinds import Dataset, ProjectSink
from tunifolk.standin.store import Store

DIRS_ENV = LEDGER_ENV
INSERTED_PREFIX = "insertAll-"
TABLE = names.TABLE
MAX_PAGE_BYTES = 10 * 1024 * 1024
DEFAULT_PAGE_ROWS = 10_000
KEPT_RESULTS = 16
"""Results kept for getQueryResults (the oldest is dropped first)."""
DEFAULT_TIMEOUT_MS = 10_000
"""jobs.query's and getQueryResults' wait when the request names none (the REST reference)."""
JOB_LIMIT_S = 120.0
MAX_ROWS = 1_000_000
QUERY_MEMORY = "512MB"
QUERY_ADDRESS_SPACE = 2 * 1024**3
"""The stand-in's own limits on one query: time, rows answered, DuckDB's memory, and the address space
of the process it runs in (a single huge value, `repeat('a', 2e9)`, is outside DuckDB's own limit)."""
QUERY_WORKERS = 2
MAX_RESULT_BYTES = 256 * 1024**2
"""A query's answer kept for its pages, at most: the stand-in's own cap (BigQuery caps a response's
bytes, 10 GB compressed), so that its kept results cannot fill the emulator's memory."""
MAX_PENDING = 2 * 2
"""Unfinished queries at once (twice the query processes): past it a query is BigQuery's 429
`rateLimitExceeded`, so that slow queries queued behind each other cannot lock the ledger out for
minutes (BigQuery caps concurrent interactive queries too, at its own number)."""
MAX_QUERY_CHARACTERS = 1024 * 1024
"""BigQuery's maximum length of a GoogleSQL query (its quotas page: 1,024K characters)."""
_LOCKED = {
    "enable_external_access": False,
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "lock_configuration": True,
}
"""DuckDB settings of the connection a query runs on: no file, no extension, no other database, and
no SET that would change it back."""
RUN_SERVICE = "gcp:cloudrunv2/service:Service"
SINK_DESTINATION = re.compile(r"^bigquery\.googleapis\.com/projects/([^/]+)/datasets/([A-Za-z0-9_]+)$")
SINK_SERVICE = re.compile(r'resource\.labels\.service_name="([^"]*)"')
"""The Cloud Run service a ledger sink's filter selects (`names.sink_filter` writes it)."""

_PAYLOAD_TYPES = {
    ledger.JOB_ID: "VARCHAR",
    ledger.STEP: "DOUBLE",  # FLOAT64: the sink's type for a JSON number
    ledger.EXAMPLE_DIGEST: "VARCHAR",
    ledger.REFERENCES: "STRUCT(" + ", ".join(f"{k} VARCHAR" for k in ledger.REFERENCE_KEYS) + ")",
    ledger.RESPONSE: "VARCHAR",
    ledger.TRUNCATED: "BOOLEAN",
    ledger.REWARD: "DOUBLE",
    ledger.SUBSCORES: "MAP(VARCHAR, DOUBLE)",
    ledger.REASON: "VARCHAR",
    ledger.SCORER_VERSION: "VARCHAR",
}
"""The JSON reader's column types for a record's fields (the sink's column types)."""
assert set(_PAYLOAD_TYPES) == set(ledger.FIELDS)


class QueryError(Exception):
    """A request BigQuery refuses: HTTP status, the error's `reason` and its message."""

    def __init__(self, status: int, reason: str, message: str) -> None:
        super().__init__(message)
        self.status, self.reason = status, reason

    def body(self) -> dict[str, Any]:
        grpc = {
            400: "INVALID_ARGUMENT",
            403: "PERMISSION_DENIED",
            404: "NOT_FOUND",
            429: "RESOURCE_EXHAUSTED",
        }
        grpc = grpc.get(self.status, "UNKNOWN")
        error = {"message": str(self), "domain": "global", "reason": self.reason}
        return {"error": {"code": self.status, "message": str(self), "errors": [error], "status": grpc}}


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _same_project(a: str, b: str) -> bool:
    return local_project_number(a) == local_project_number(b)


class Ledger:
    """The sink's table over the ledger files of the queried dataset, reloaded when a file has grown;
    and the queries run on it, for their later pages. Thread-safe: one lock guards loading and the
    kept jobs; each query runs on its own cursor of the locked, read-only copy of the table. With
    `state` (the gcp stand-in's records) the datasets are the stand-in's; without, every dataset is
    every file of `dirs`."""

    def __init__(self, dirs: list[Path], state: Path | None = None) -> None:
        self.dirs, self.state = dirs, state
        self._lock = threading.Lock()
        self._seen: tuple[tuple[str, int, int], ...] | None = None
        self._rows = 0
        self._generation = 0
        self._db: Path | None = None
        self._jobs: OrderedDict[str, Future[Outcome]] = OrderedDict()  # a query: its outcome to come
        self._pool: ProcessPoolExecutor | None = None

    @functools.cached_property
    def _work(self) -> Path:
        """The folder of the table's database copies, made by the first query: most processes that
        hold a ledger (every emulator, every gcp stand-in) never query it, and a process killed
        before its exit handlers run leaves its folder behind."""
        work = Path(tempfile.mkdtemp(prefix="tunifolk-bigquery-"))
        weakref.finalize(self, shutil.rmtree, work, True)  # the copies go with the ledger
        return work

    def _datasets(self, store: Store, project: str, dataset: str) -> list[Any]:
        return [
            r
            for r in store.all(Dataset.token)
            if r.inputs.get("datasetId") == dataset
            and _same_project(str(r.inputs.get("project", "")), project)
        ]

    def dataset(self, project: str, dataset: str) -> dict[str, Any]:
        """datasets.get: the dataset's resource, or BigQuery's 404."""
        if self.state is not None and not self._datasets(Store(self.state), project, dataset):
            raise _dataset_missing(project, dataset)
        return {
            "kind": "bigquery#dataset",
            "id": f"{project}:{dataset}",
            "datasetReference": {"projectId": project, "datasetId": dataset},
            "location": "US",
        }

    def files(self, project: str, dataset: str) -> list[Path]:
        """The ledger files behind `project`'s `dataset`: every file of the directories without
        `state`; else those of the services its sinks route, and a 404 for a dataset that does not exist."""
        if self.state is None:  # every dataset is every file: the inserted rows of any dataset too
            out: list[Path] = []
            for d in self.dirs:
                out += sorted(p for p in d.glob("*") if p.suffix in (".stdout", ".log") and p.is_file())
                out += sorted(p for p in d.glob(f"{INSERTED_PREFIX}*.jsonl") if p.is_file())
            return out
        inserted = self.inserted_file(project, dataset)
        store = Store(self.state)
        if not self._datasets(store, project, dataset):
            raise _dataset_missing(project, dataset)
        services = set()
        for sink in store.all(ProjectSink.token):
            match = SINK_DESTINATION.match(str(sink.inputs.get("destination", "")))
            if match and match.group(2) == dataset and _same_project(match.group(1), project):
                services.update(SINK_SERVICE.findall(str(sink.inputs.get("filter", ""))))
        logs = [
            cloudrun.log_file(self.state, r.id)
            for r in store.all(RUN_SERVICE)
            if r.inputs.get("name") in services and _same_project(str(r.inputs.get("project", "")), project)
        ]
        return [p for p in [*logs, inserted] if p.is_file()]

    def inserted_file(self, project: str, dataset: str) -> Path:
        """Where the rows `tabledata.insertAll` added to `project`'s `dataset` are kept: beside the
        gcp stand-in's records, or in the ledger's first directory without them."""
        safe = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{project}.{dataset}")
        base = (
            self.state / "bigquery" if self.state is not None else (self.dirs[0] if self.dirs else self._work)
        )
        return base / f"{INSERTED_PREFIX}{safe}.jsonl"

    def insert(self, project: str, dataset: str, table: str, request: dict[str, Any]) -> dict[str, Any]:
        """tabledata.insertAll into the ledger's table: each row's `json` as the sink writes a row
        (labels, severity, jsonPayload). The table must exist (the sink makes it with its first
        record); a row whose jsonPayload is not a record of the ledger's fields is refused in
        `insertErrors` with BigQuery's `invalid` reason, and the others are written unless
        `skipInvalidRows` is false (BigQuery's default: one bad row fails the whole request)."""
        self.dataset(project, dataset)
        if table != TABLE or (self.state is not None and not any(self.files(project, dataset))):
            raise QueryError(404, "notFound", f"Not found: Table {project}:{dataset}.{table}")
        try:
            rows = _list(request.get("rows"), "rows")
        except TypeError as exc:
            raise QueryError(400, "invalid", str(exc)) from None
        lines, errors = [], []
        for i, row in enumerate(rows):
            doc = row.get("json") if isinstance(row, dict) else None
            payload = doc.get("jsonPayload") if isinstance(doc, dict) else None
            labels = doc.get("labels") if isinstance(doc, dict) else None
            label = labels.get(ledger.LABEL_KEY) if isinstance(labels, dict) else None
            if not isinstance(payload, dict) or not set(payload) <= {*ledger.FIELDS, "message"}:
                errors.append({"index": i, "errors": [{"reason": "invalid", "message": "no such field"}]})
                continue
            entry = {"severity": doc.get("severity", "INFO"), ledger.LABELS_FIELD: {ledger.LABEL_KEY: label}}
            lines.append(orjson.dumps({**entry, **payload}) + b"\n")
        if errors and not request.get("skipInvalidRows"):
            stopped = [
                {"index": i, "errors": [{"reason": "stopped", "message": ""}]} for i in range(len(rows))
            ]
            return {
                "kind": "bigquery#tableDataInsertAllResponse",
                "insertErrors": errors
                + [e for e in stopped if e["index"] not in {x["index"] for x in errors}],
            }
        path = self.inserted_file(project, dataset)
        path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock, path.open("ab") as f:
            f.writelines(lines)
        answer: dict[str, Any] = {"kind": "bigquery#tableDataInsertAllResponse"}
        if errors:
            answer["insertErrors"] = errors
        return answer

    def _refresh(self, files: list[Path]) -> Path:
        """The database file holding the table of `files`, loaded again when one grew. Loading needs
        file access, so it runs here; queries open the file read-only, in a process of their own, with
        every outside access off (`_run`). The two newest files are kept: a query may still read the
        one before."""
        seen = tuple((str(p), (s := p.stat()).st_size, s.st_mtime_ns) for p in files)
        if seen == self._seen and self._db is not None:
            return self._db
        self._generation += 1
        path = self._work / f"ledger-{self._generation}.duckdb"
        with duckdb.connect(str(path)) as con:
            self._rows = _load(con, files)
        self._db, self._seen = path, seen
        for stale in self._work.glob("ledger-*.duckdb"):
            if int(stale.stem.rsplit("-", 1)[1]) < self._generation - 1:
                stale.unlink(missing_ok=True)
        return path

    def _workers(self) -> ProcessPoolExecutor:
        """The query processes (started again when one died: killed at its memory limit, say)."""
        if self._pool is None or getattr(self._pool, "_broken", False):
            self._pool = ProcessPoolExecutor(
                max_workers=QUERY_WORKERS,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_limit_process,
                initargs=(QUERY_ADDRESS_SPACE,),
            )
        return self._pool

    def query(self, project: str, request: dict[str, Any]) -> dict[str, Any]:
        """jobs.query: check the SQL, run it (off the caller's thread), answer its first page, or
        `jobComplete: false` when it runs past `timeoutMs`."""
        if request.get("useLegacySql", True) is not False:
            raise QueryError(400, "invalidQuery", "the stand-in runs GoogleSQL only: send useLegacySql false")
        sql = request.get("query")
        if not isinstance(sql, str) or not sql.strip():
            raise QueryError(400, "invalid", "Required parameter is missing: query")
        if len(sql) > MAX_QUERY_CHARACTERS:
            raise QueryError(
                400,
                "invalid",
                f"The query is too large: the maximum length is {MAX_QUERY_CHARACTERS} characters",
            )
        try:
            params = [_param(p) for p in _list(request.get("queryParameters"), "queryParameters")]
        except (TypeError, ValueError, AttributeError, OverflowError) as exc:
            raise QueryError(400, "invalid", f"Invalid query parameter: {exc}") from None
        if request.get("parameterMode", "POSITIONAL") != "POSITIONAL" and params:
            raise QueryError(400, "invalidQuery", "the stand-in takes positional (?) parameters only")
        where = request.get("defaultDataset") or {}
        if not isinstance(where, dict):
            raise QueryError(400, "invalid", "defaultDataset must be a DatasetReference object")
        dataset, owner = where.get("datasetId"), str(where.get("projectId") or project)
        if not isinstance(dataset, str) or not dataset:
            raise QueryError(
                400,
                "invalid",
                f'Table name "{TABLE}" missing dataset while no default dataset is set in the request.',
            )
        with self._lock:
            db = self._refresh(self.files(owner, dataset))
            if self.state is not None and not self._rows:
                raise QueryError(
                    404,
                    "notFound",
                    f"Not found: Table {owner}:{dataset}.{TABLE} was not found in location US",
                )
            if sum(not f.done() for f in self._jobs.values()) >= MAX_PENDING:
                raise QueryError(
                    429,
                    "rateLimitExceeded",
                    f"Exceeded rate limits: more than {MAX_PENDING} queries unfinished",
                )
            job_id = "job_" + secrets.token_hex(10)
            limits = (JOB_LIMIT_S, MAX_ROWS, QUERY_MEMORY, MAX_RESULT_BYTES)
            self._jobs[job_id] = self._workers().submit(_run, str(db), sql, params, limits)
            while len(self._jobs) > KEPT_RESULTS:
                _, dropped = self._jobs.popitem(last=False)
                dropped.cancel()  # a query no one can ask for any more need not run
        return self._answer(
            project, job_id, request.get("timeoutMs"), request.get("maxResults"), 0, "bigquery#queryResponse"
        )

    def results(
        self, project: str, job: str, max_results: Any, token: Any, timeout_ms: Any = None
    ) -> dict[str, Any]:
        """jobs.getQueryResults: a later page of a kept job, waiting up to `timeoutMs` for it."""
        try:
            start = int(token or 0)
        except ValueError:
            raise QueryError(400, "invalid", f"Invalid page token {token!r}") from None
        return self._answer(project, job, timeout_ms, max_results, start, "bigquery#getQueryResultsResponse")

    def _answer(
        self, project: str, job: str, timeout_ms: Any, max_results: Any, start: int, kind: str
    ) -> dict[str, Any]:
        with self._lock:
            kept = self._jobs.get(job)
        if kept is None:
            raise QueryError(404, "notFound", f"Not found: Job {project}:{job}")
        try:
            wait = max(0.0, float(timeout_ms)) / 1000 if timeout_ms is not None else DEFAULT_TIMEOUT_MS / 1000
            wait = min(wait, JOB_LIMIT_S + 10.0)  # no caller waits past a query's own limit
            limit = int(max_results) if max_results not in (None, "") else DEFAULT_PAGE_ROWS
            if limit < 1 or start < 0:
                raise ValueError("maxResults and pageToken must not be negative")
        except (TypeError, ValueError, OverflowError) as exc:
            raise QueryError(400, "invalid", f"Invalid timeoutMs, maxResults or pageToken: {exc}") from None
        reference = {"projectId": project, "jobId": job, "location": "US"}
        try:
            outcome = kept.result(timeout=wait)
        except FutureTimeout:
            return {"kind": kind, "jobReference": reference, "jobComplete": False}
        except BrokenProcessPool:  # the query's process died: its address space ran out
            raise QueryError(
                400,
                "resourcesExceeded",
                "Resources exceeded during query execution: the stand-in's memory limit",
            ) from None
        schema, rows = _result(outcome)
        return _page(kind, reference, schema, rows, limit, start)


def _load(con: duckdb.DuckDBPyConnection, files: list[Path]) -> int:
    """Build the sink's table from the ledger lines of `files` on `con`; its row count."""
    labels = "STRUCT(" + f"{ledger.LABEL_KEY} VARCHAR)"
    columns = {"severity": "VARCHAR", "message": "VARCHAR", ledger.LABELS_FIELD: labels, **_PAYLOAD_TYPES}
    if not files:
        con.execute(f"CREATE TEMP TABLE raw AS SELECT * FROM (SELECT {_empty(columns)}) WHERE false")
    else:
        con.execute(
            "CREATE TEMP TABLE raw AS SELECT * FROM read_json(?, format='newline_delimited', "
            "ignore_errors=true, columns=?) WHERE "
            f"{_q(ledger.LABELS_FIELD)}.{ledger.LABEL_KEY} IN ?",
            [[str(p) for p in files], columns, list(names.LABELS)],
        )
    keys = [
        r[0] for r in con.execute(f"SELECT DISTINCT unnest(map_keys({ledger.SUBSCORES})) FROM raw").fetchall()
    ]
    subs = ", ".join(f"{_q(n)} := {ledger.SUBSCORES}[{_lit(n)}]" for n in sorted(keys) if n.isidentifier())
    fields = [
        f"{_q(f)} := " + (f"struct_pack({subs})" if f == ledger.SUBSCORES and subs else _q(f))
        for f in ("message", *ledger.FIELDS)
        if f != ledger.SUBSCORES or subs
    ]
    con.execute(
        f"CREATE TABLE {TABLE} AS SELECT severity, "
        f"{_q(ledger.LABELS_FIELD)} AS labels, struct_pack({', '.join(fields)}) AS jsonPayload FROM raw"
    )
    return int(con.execute(f"SELECT count(*) FROM {TABLE}").fetchone()[0])


FUNCTIONS = frozenset(
    {
        # aggregates and arithmetic the ledger's reads use, and their GoogleSQL kin
        "count", "count_star", "sum", "avg", "min", "max", "any_value", "stddev", "variance",
        "mod", "abs", "round", "floor", "ceil", "sign", "sqrt", "ln", "exp", "pow", "power",
        "coalesce", "ifnull", "nullif", "length", "lower", "upper", "concat", "substr", "substring",
        "starts_with", "ends_with", "strpos", "hash",
        "+", "-", "*", "/", "~~", "!~~",  # operators, LIKE and NOT LIKE
    }
)  # fmt: skip
"""The functions a ledger query may call: an allowlist of GoogleSQL's aggregates, arithmetic and string
functions that DuckDB spells alike. Anything else (a setting, a variable, a catalog function) is
refused, whatever its name."""


def _guard(sql: str) -> None:
    """Refuse, before anything runs, all but one SELECT that reads the ledger's table (and the CTEs in
    scope where it reads one), calling only FUNCTIONS: DuckDB's own parser says what the statement is
    (`json_serialize_sql` serialises SELECTs only), so no pattern over the SQL's text is trusted. Runs
    in the query's process, under its limits."""
    with duckdb.connect(config=_LOCKED) as con:
        tree = json.loads(con.execute("SELECT json_serialize_sql(?)", [sql]).fetchone()[0])
    if tree.get("error"):
        raise QueryError(
            400, "invalidQuery", f"only a SELECT over {TABLE} runs here: {tree.get('error_message')}"
        )
    statements = tree.get("statements") or []
    if len(statements) != 1:
        raise QueryError(400, "invalidQuery", f"one statement per query, got {len(statements)}")
    stack: list[tuple[Any, frozenset[str]]] = [(statements, frozenset())]
    while stack:
        node, ctes = stack.pop()
        if isinstance(node, list):
            stack += [(child, ctes) for child in node]
            continue
        if not isinstance(node, dict):
            continue
        names = {str(e.get("key", "")).lower() for e in (node.get("cte_map") or {}).get("map") or []}
        ctes = ctes | names  # a CTE is in scope in the query that defines it, and below
        if node.get("type") in ("BASE_TABLE", "TABLE_FUNCTION"):
            _table(node, ctes)
        if node.get("class") == "FUNCTION":
            _googlesql_signature(node)
        stack += [(child, ctes) for child in node.values()]


def _table(table: dict[str, Any], ctes: frozenset[str]) -> None:
    """A table a query reads: the ledger's, or a CTE in scope; nothing else."""
    name = str(table.get("table_name") or "")
    plain = (
        table.get("type") == "BASE_TABLE" and not table.get("schema_name") and not table.get("catalog_name")
    )
    if not plain or (name != TABLE and name.lower() not in ctes):
        what = "a table function" if table.get("type") == "TABLE_FUNCTION" else f"table {name!r}"
        raise QueryError(400, "invalidQuery", f"the query reads {what}; only {TABLE} can be read here")


def _googlesql_signature(call: dict[str, Any]) -> None:
    """The one place DuckDB is looser than GoogleSQL on what the ledger's reads do: `MOD` takes
    INT64, NUMERIC or BIGNUMERIC only (GoogleSQL's mathematical functions), so MOD over a FLOAT64
    column (the sink's `step`) fails on BigQuery and must fail here; and GoogleSQL has no `%`."""
    name = str(call.get("function_name", "")).lower()
    if name not in FUNCTIONS and name != "%":
        raise QueryError(
            400, "invalidQuery", f"Function not found: {name} (the stand-in runs the ledger's reads)"
        )
    if name == "%":
        raise QueryError(400, "invalidQuery", 'Syntax error: Unexpected "%" (GoogleSQL has MOD, not %)')
    if name != "mod":
        return
    for argument in call.get("arguments") or []:
        expr = argument.get("expression") if isinstance(argument, dict) else None
        path = (
            expr.get("column_names") if isinstance(expr, dict) and expr.get("class") == "COLUMN_REF" else None
        )
        if path and path[-1] in _PAYLOAD_TYPES and _PAYLOAD_TYPES[path[-1]] == "DOUBLE":
            raise QueryError(
                400,
                "invalidQuery",
                "No matching signature for function MOD for argument types: FLOAT64, INT64. Supported "
                "signatures: MOD(INT64, INT64); MOD(NUMERIC, NUMERIC); MOD(BIGNUMERIC, BIGNUMERIC)",
            )


Outcome = tuple[Any, ...]
"""What a query's process sends back: ("ok", schema, rows) or ("error", status, reason, message)."""


def _limit_process(address_space: int) -> None:
    """In a query's process: cap its address space, so that no value DuckDB builds takes the machine,
    and leave as soon as the process that started it is gone (no orphan keeps running)."""
    resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def _run(db: str, sql: str, params: list[Any], limits: tuple[float, int, str, int]) -> Outcome:
    """Run one query on a read-only, locked connection to `db`, interrupted at its time limit: the
    schema and converted rows, or the error as BigQuery would name it. In a process of its own (the
    stand-in's `_workers`); the outcome is plain data, since it crosses back by pickle."""
    seconds, max_rows, memory, max_bytes = limits
    config = {**_LOCKED, "memory_limit": memory, "threads": 1}
    try:
        _guard(sql)
    except QueryError as exc:
        return ("error", exc.status, exc.reason, str(exc))
    except (RecursionError, MemoryError):
        return ("error", 400, "invalidQuery", "The query is too deeply nested or too large to parse")
    try:
        with duckdb.connect(db, read_only=True, config=config) as con:
            timer = threading.Timer(seconds, con.interrupt)
            timer.start()
            try:
                rel = con.sql(sql, params=params or None)
                if rel is None:
                    return ("error", 400, "invalidQuery", "not a query")
                schema = [_field(n, t) for n, t in zip(rel.columns, rel.types, strict=True)]
                convs = [_converter(f) for f in schema]
                found = rel.limit(max_rows + 1).fetchall()
            finally:
                timer.cancel()
    except duckdb.InterruptException:
        return ("error", 400, "timeout", f"Query exceeded the stand-in's limit of {seconds:.0f}s")
    except (duckdb.OutOfMemoryException, MemoryError):
        return ("error", 400, "resourcesExceeded", "Resources exceeded during query execution")
    except duckdb.Error as exc:
        return ("error", 400, "invalidQuery", str(exc).splitlines()[0])
    if len(found) > max_rows:
        return ("error", 403, "responseTooLarge", f"Response too large to return: over {max_rows} rows")
    rows, size = [], 0
    for row in found:
        cells = [c(v) for c, v in zip(convs, row, strict=True)]
        size += len(orjson.dumps(cells))
        if size > max_bytes:
            return (
                "error",
                403,
                "responseTooLarge",
                f"Response too large to return: over {max_bytes} bytes",
            )
        rows.append(cells)
    return ("ok", schema, rows)


def _result(outcome: Outcome) -> tuple[list[dict[str, Any]], list[list[Any]]]:
    """A query's outcome as (schema, rows), or its QueryError raised."""
    if outcome[0] == "error":
        raise QueryError(*outcome[1:])
    return outcome[1], outcome[2]


def _list(value: Any, name: str) -> list[Any]:
    """A request field that must be a list (absent: empty)."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise TypeError(f"{name} must be a list")
    return value


def _dataset_missing(project: str, dataset: str) -> QueryError:
    return QueryError(404, "notFound", f"Not found: Dataset {project}:{dataset} was not found in location US")


def _page(
    kind: str,
    reference: dict[str, Any],
    schema: list[dict[str, Any]],
    rows: list[list[Any]],
    limit: int,
    start: int,
) -> dict[str, Any]:
    end, size = start, 0
    while end < len(rows) and end - start < limit and size < MAX_PAGE_BYTES:
        size += len(orjson.dumps(rows[end]))
        end += 1
    out: dict[str, Any] = {
        "kind": kind,
        "schema": {"fields": schema},
        "jobReference": reference,
        "totalRows": str(len(rows)),
        "rows": [{"f": r} for r in rows[start:end]],
        "jobComplete": True,
        "cacheHit": False,
    }
    if end < len(rows):
        out["pageToken"] = str(end)
    return out


def _empty(columns: dict[str, str]) -> str:
    return ", ".join(f"NULL::{t} AS {_q(n)}" for n, t in columns.items())


def _lit(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _param(p: dict[str, Any]) -> Any:
    """A positional query parameter's value, by its BigQuery type."""
    kind = ((p.get("parameterType") or {}).get("type") or "STRING").upper()
    value = (p.get("parameterValue") or {}).get("value")
    if value is None:
        return None
    if kind in ("INT64", "INTEGER"):
        return int(value)
    if kind in ("FLOAT64", "FLOAT", "NUMERIC"):
        return float(value)
    if kind in ("BOOL", "BOOLEAN"):
        return str(value).lower() == "true"
    return str(value)


_SCALARS = {
    "bigint": "INTEGER", "integer": "INTEGER", "hugeint": "INTEGER", "smallint": "INTEGER",
    "tinyint": "INTEGER", "ubigint": "INTEGER", "uinteger": "INTEGER", "double": "FLOAT",
    "float": "FLOAT", "decimal": "FLOAT", "boolean": "BOOLEAN", "varchar": "STRING",
}  # fmt: skip


def _field(name: str, t: Any, mode: str = "NULLABLE") -> dict[str, Any]:
    """A BigQuery TableFieldSchema for a DuckDB type."""
    if t.id == "list":
        return _field(name, t.children[0][1], "REPEATED")
    if t.id == "struct":
        return {"name": name, "type": "RECORD", "mode": mode, "fields": [_field(n, c) for n, c in t.children]}
    return {"name": name, "type": _SCALARS.get(t.id, "STRING"), "mode": mode}


Cell = Callable[[Any], dict[str, Any]]


def _converter(field: dict[str, Any]) -> Cell:
    """A function from a DuckDB value to its row cell, `{"v": ...}` with numbers and booleans as
    strings (the REST format), built once per column (a ledger answer has millions of cells)."""
    if field["mode"] == "REPEATED":
        one = _converter({**field, "mode": "NULLABLE"})
        return lambda value: {"v": [one(v) for v in value or []]}
    if field["type"] == "RECORD":
        subs = [(f["name"], _converter(f)) for f in field["fields"]]

        def record(value: Any) -> dict[str, Any]:
            if value is None:
                return {"v": None}
            get = value.get
            return {"v": {"f": [conv(get(name)) for name, conv in subs]}}

        return record
    if field["type"] == "BOOLEAN":
        return lambda value: {"v": None if value is None else ("true" if value else "false")}
    if field["type"] == "FLOAT":
        return lambda value: {"v": None if value is None else repr(float(value))}
    return lambda value: {"v": None if value is None else str(value)}


def ledger_dirs() -> list[Path]:
    """`TUNIFOLK_LEDGER_DIRS`, else the gcp stand-in's Cloud Run run directory."""
    raw = os.environ.get(DIRS_ENV, "").strip()
    if raw:
        return [Path(p).resolve() for p in raw.split(os.pathsep) if p]
    return [standin.state_dir() / "run"]


def default_ledger() -> Ledger:
    """`TUNIFOLK_LEDGER_DIRS`' files for any dataset when it is set, else the gcp stand-in's datasets."""
    if os.environ.get(DIRS_ENV, "").strip():
        return Ledger(ledger_dirs())
    return Ledger(ledger_dirs(), state=standin.state_dir())


def routes(book: Ledger | None = None) -> list[Route]:
    """The BigQuery routes (jobs.query, jobs.getQueryResults, datasets.get, tabledata.insertAll), over
    `book` (`default_ledger()` when not given)."""
    kept = book or default_ledger()

    async def query(request: Request) -> Response:
        try:
            body = await request.json()
            if not isinstance(body, dict):
                raise QueryError(400, "invalid", "the body is not a QueryRequest object")
            # Off the event loop: a ledger query takes seconds, and the emulator serves Vertex meanwhile.
            return _json(await run_in_threadpool(kept.query, request.path_params["project"], body))
        except QueryError as exc:
            return _json(exc.body(), status_code=exc.status)
        except (ValueError, RecursionError):  # a body that is not JSON, or nested past parsing
            return _json(QueryError(400, "parseError", "the body is not JSON").body(), status_code=400)

    async def results(request: Request) -> Response:
        q = request.query_params
        try:
            page = await run_in_threadpool(
                kept.results,
                request.path_params["project"],
                request.path_params["job"],
                q.get("maxResults"),
                q.get("pageToken"),
                q.get("timeoutMs"),
            )
            return _json(page)
        except QueryError as exc:
            return _json(exc.body(), status_code=exc.status)

    async def insert_all(request: Request) -> Response:
        p = request.path_params
        try:
            body = await request.json()
            if not isinstance(body, dict):
                raise QueryError(400, "invalid", "the body is not a TableDataInsertAllRequest object")
            found = await run_in_threadpool(kept.insert, p["project"], p["dataset"], p["table"], body)
            return _json(found)
        except QueryError as exc:
            return _json(exc.body(), status_code=exc.status)
        except (ValueError, RecursionError):
            return _json(QueryError(400, "parseError", "the body is not JSON").body(), status_code=400)

    async def dataset(request: Request) -> Response:
        try:
            found = kept.dataset(request.path_params["project"], request.path_params["dataset"])
            return _json(found)
        except QueryError as exc:
            return _json(exc.body(), status_code=exc.status)

    base = "/bigquery/v2/projects/{project}"
    return [
        Route(base + "/queries", query, methods=["POST"]),
        Route(base + "/queries/{job}", results, methods=["GET"]),
        Route(base + "/datasets/{dataset}", dataset, methods=["GET"]),
        Route(base + "/datasets/{dataset}/tables/{table}/insertAll", insert_all, methods=["POST"]),
    ]


def _json(doc: dict[str, Any], status_code: int = 200) -> Response:
    """A JSON answer, encoded by orjson (a ledger page is megabytes)."""
    return Response(orjson.dumps(doc), status_code=status_code, media_type="application/json")
