"""The BigQuery stand-in as Google documents BigQuery, and no more: the sink's FLOAT64 numbers, the
table that appears with the first record, `timeoutMs`, and SQL limited to one read of the ledger's
table on a connection that reaches no file, extension or other database. In process, on a real
DuckDB: the stand-in is the unit under test (tests/test_ledger_*.py run it behind HTTP)."""

from __future__ import annotations

import gc
import subprocess
import sys
import tempfile
from pathlib import Path

import orjson
import pytest

from scorer import ledger
from tunifolk.standin import bigquery
from tunifolk.standin.bigquery import TABLE, Ledger, QueryError


def record(step: int, job: str = "7") -> bytes:
    fields = ledger.record({"step": step, "tuningJobId": job}, {}, {"form": "malzuma"}, "poem", 0.5, {}, "ok")
    return ledger.log_line(fields)


def _six_records(folder: Path) -> Ledger:
    (folder / "scorer.stdout").write_bytes(b"".join(record(s) for s in range(6)))
    return Ledger([folder])


@pytest.fixture(scope="module")
def book(tmp_path_factory: pytest.TempPathFactory) -> Ledger:
    """A ledger of six records shared by the tests that only query it: its query processes start
    once, not per test (each start imports Python and DuckDB, about a third of a second)."""
    return _six_records(tmp_path_factory.mktemp("ledger"))


@pytest.fixture()
def own_book(tmp_path: Path) -> Ledger:
    """A ledger of its own, for a test that writes to it or changes the stand-in's limits."""
    return _six_records(tmp_path)


def ask(book: Ledger, sql: str, *params: object, **request: object) -> dict:
    query = {
        "query": sql,
        "useLegacySql": False,
        "defaultDataset": {"projectId": "p", "datasetId": "d"},
        "queryParameters": [
            {"parameterType": {"type": "INT64"}, "parameterValue": {"value": str(v)}} for v in params
        ],
        **request,
    }
    return book.query("p", query)


def test_the_sink_types_step_float64_so_mod_needs_a_cast(book: Ledger) -> None:
    page = ask(book, f"SELECT jsonPayload.step FROM {TABLE} ORDER BY 1")
    assert page["schema"]["fields"][0]["type"] == "FLOAT"
    with pytest.raises(QueryError, match="No matching signature for function MOD"):
        ask(book, f"SELECT 1 FROM {TABLE} WHERE MOD(jsonPayload.step, ?) = ?", 2, 0)
    shard = ask(book, f"SELECT 1 FROM {TABLE} WHERE MOD(CAST(jsonPayload.step AS INT64), ?) = ?", 2, 0)
    assert shard["totalRows"] == "3"


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM read_text('/etc/passwd')",
        "SELECT * FROM read_csv('/etc/passwd')",
        "SELECT * FROM range(5000000)",
        "COPY (SELECT 1) TO '/tmp/tunifolk-standin-copy.csv'",
        "ATTACH '/tmp/tunifolk-standin.db' AS other",
        "INSTALL httpfs",
        "SET enable_external_access = true",
        f"SELECT 1 FROM {TABLE}; SELECT 2",
        "SELECT * FROM main.run_googleapis_com_stdout",
        "SELECT * FROM duckdb_settings()",
        "PRAGMA version",
        f"SELECT jsonPayload.step % 2 FROM {TABLE}",
    ],
)
def test_only_one_select_of_the_ledger_runs(book: Ledger, sql: str) -> None:
    with pytest.raises(QueryError) as refused:
        ask(book, sql)
    assert refused.value.status == 400 and refused.value.reason == "invalidQuery"
    assert (
        not Path("/tmp/tunifolk-standin-copy.csv").exists() and not Path("/tmp/tunifolk-standin.db").exists()
    )


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM read_text('/etc/passwd')",
        "COPY (SELECT 1) TO '/tmp/tunifolk-standin-copy.csv'",
        "ATTACH '/tmp/tunifolk-standin.db' AS other",
        "SET enable_external_access = true",
        f"CREATE TABLE more AS SELECT * FROM {TABLE}",
    ],
)
def test_the_query_connection_itself_reaches_nothing_past_the_parser(book: Ledger, sql: str) -> None:
    """The parser's check is not the only wall: the connection a query runs on refuses files,
    other databases, settings and writes by itself."""
    db = book._refresh(book.files("p", "d"))
    with pytest.raises(QueryError):
        bigquery._result(bigquery._run(str(db), sql, [], (5.0, 10, "256MB", 10**6)))
    assert (
        not Path("/tmp/tunifolk-standin-copy.csv").exists() and not Path("/tmp/tunifolk-standin.db").exists()
    )


def test_a_query_without_a_default_dataset_is_refused(book: Ledger) -> None:
    with pytest.raises(QueryError, match="missing dataset") as refused:
        book.query("p", {"query": f"SELECT 1 FROM {TABLE}", "useLegacySql": False})
    assert refused.value.status == 400


def test_a_query_past_timeout_ms_is_incomplete_and_its_results_come_later(
    own_book: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    heavy = (
        f"SELECT count(*) FROM {TABLE} a, {TABLE} b, {TABLE} c, {TABLE} d, {TABLE} e, {TABLE} f, {TABLE} g"
    )
    first = ask(own_book, heavy, timeoutMs=0)
    assert first["jobComplete"] is False and "rows" not in first
    job = first["jobReference"]["jobId"]
    done = own_book.results("p", job, None, None, 30_000)
    assert done["jobComplete"] is True and done["rows"][0]["f"][0]["v"] == str(6**7)


def test_a_runaway_query_stops_at_the_stand_ins_limits(own_book: Ledger, monkeypatch) -> None:
    monkeypatch.setattr(bigquery, "MAX_ROWS", 10)
    with pytest.raises(QueryError, match="Response too large") as refused:
        ask(own_book, f"SELECT a.severity FROM {TABLE} a, {TABLE} b")
    assert refused.value.reason == "responseTooLarge"
    monkeypatch.setattr(bigquery, "JOB_LIMIT_S", 0.2)
    tables = ", ".join(f"{TABLE} t{i}" for i in range(10))  # 6**10 rows
    loop = f"SELECT sum(hash(t0.jsonPayload.step + t9.jsonPayload.step)) FROM {tables}"
    with pytest.raises(QueryError, match="limit of"):
        ask(own_book, loop, timeoutMs=60_000)


def test_the_copies_folder_comes_with_the_first_query_and_goes_with_the_ledger(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every emulator and gcp stand-in holds a ledger, and most never query it: a folder made at
    start was left in the temporary directory by each one killed before its exit handlers ran."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    folder = tmp_path / "ledger"
    folder.mkdir()
    book = _six_records(folder)
    assert not list(temp.iterdir())
    assert ask(book, f"SELECT count(*) FROM {TABLE}")["rows"][0]["f"][0]["v"] == "6"
    made = list(temp.iterdir())
    assert len(made) == 1 and made[0].name.startswith("tunifolk-bigquery-")
    del book
    gc.collect()
    assert not made[0].exists()


def test_a_records_json_numbers_round_trip(tmp_path: Path) -> None:
    (tmp_path / "a.log").write_bytes(record(3) + orjson.dumps({"other": "line"}) + b"\n")
    page = ask(Ledger([tmp_path]), f"SELECT jsonPayload.job_id, jsonPayload.step FROM {TABLE}")
    assert [[c["v"] for c in row["f"]] for row in page["rows"]] == [["7", "3.0"]]


@pytest.mark.parametrize(
    "sql",
    [
        f"SELECT length(repeat('a', 4000000000)) FROM {TABLE}",  # one value past DuckDB's memory limit
        f"SELECT list_sum(range(300000000)) FROM {TABLE}",
    ],
)
def test_a_query_that_would_take_the_machines_memory_is_refused_and_the_stand_in_answers_on(
    book: Ledger, sql: str
) -> None:
    """Such values (they took 4 to 8.5 GiB of the emulator's memory before) are not built: their
    functions are not the ledger's."""
    with pytest.raises(QueryError, match="Function not found"):
        ask(book, sql, timeoutMs=60_000)
    assert ask(book, f"SELECT count(*) FROM {TABLE}")["rows"][0]["f"][0]["v"] == "6"


def test_a_query_process_cannot_grow_past_its_address_space() -> None:
    """And should a value grow anyway, the query's process is capped (`_limit_process`): the value that
    took 3.9 GiB fails there instead of taking the machine's memory."""
    code = (
        "import duckdb\n"
        "from tunifolk.standin.bigquery import _limit_process\n"
        "_limit_process(1024**3)\n"
        "try:\n"
        "    duckdb.sql(\"SELECT length(repeat('a', 2000000000))\").fetchall()\n"
        "    print('built')\n"
        "except (duckdb.Error, MemoryError) as exc:\n"
        "    print('stopped', type(exc).__name__)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.startswith("stopped"), done.stdout + done.stderr


# --------------------------------------------------------------------------- a fresh attacker's round


@pytest.mark.parametrize("view", ["pg_settings", "duckdb_databases", "duckdb_tables", "sqlite_master"])
def test_a_cte_whitelists_nothing_outside_its_scope(book: Ledger, view: str) -> None:
    with pytest.raises(QueryError, match="only run_googleapis_com_stdout"):
        ask(book, f"SELECT {view}.* FROM (WITH {view} AS (SELECT 1) SELECT 1) AS x, {view}")
    inside = f"WITH mine AS (SELECT jsonPayload.step AS s FROM {TABLE}) SELECT count(*) FROM mine"
    assert ask(book, inside)["rows"][0]["f"][0]["v"] == "6"  # a CTE in scope reads as itself


@pytest.mark.parametrize(
    "sql",
    [
        f"SELECT current_setting('temp_directory') FROM {TABLE}",
        "SELECT current_setting('allowed_directories')",
        f"SELECT getvariable('x') FROM {TABLE}",
        f"SELECT version() FROM {TABLE}",
    ],
)
def test_only_the_ledgers_functions_run(book: Ledger, sql: str) -> None:
    with pytest.raises(QueryError, match="Function not found"):
        ask(book, sql)


def test_a_huge_or_deep_query_is_refused_without_costing_the_emulator(book: Ledger) -> None:
    huge = "SELECT " + ",".join(["[[1,2],[3,4]]"] * 100_000) + f" FROM {TABLE}"
    with pytest.raises(QueryError, match="too large"):
        ask(book, huge)
    deep = "SELECT * FROM " + "(SELECT * FROM " * 1000 + TABLE + ")" * 1000
    with pytest.raises(QueryError) as refused:
        ask(book, deep, timeoutMs=60_000)
    assert refused.value.status == 400


@pytest.mark.parametrize(
    "extra",
    [
        {"defaultDataset": "d"},
        {"queryParameters": [1]},
        {"queryParameters": {"a": 1}},
        {"queryParameters": [{"parameterType": "INT64"}]},
        {"queryParameters": [{"parameterType": {"type": "INT64"}, "parameterValue": {"value": "1e400"}}]},
        {"timeoutMs": "soon"},
        {"maxResults": "abc"},
        {"maxResults": -1},
    ],
)
def test_a_malformed_request_is_a_400_naming_the_field(book: Ledger, extra: dict) -> None:
    request = {
        "query": f"SELECT count(*) FROM {TABLE}",
        "useLegacySql": False,
        "defaultDataset": {"projectId": "p", "datasetId": "d"},
        **extra,
    }
    with pytest.raises(QueryError) as refused:
        book.query("p", request)
    assert refused.value.status == 400


def test_queued_queries_are_capped(own_book: Ledger, monkeypatch) -> None:
    slow = ", ".join(f"{TABLE} t{i}" for i in range(9))  # 6**9 rows to count: seconds each
    monkeypatch.setattr(bigquery, "JOB_LIMIT_S", 3.0)
    for _ in range(bigquery.MAX_PENDING):
        assert ask(own_book, f"SELECT count(*) FROM {slow}", timeoutMs=0)["jobComplete"] is False
    with pytest.raises(QueryError) as refused:
        ask(own_book, f"SELECT count(*) FROM {slow}", timeoutMs=0)
    assert refused.value.status == 429 and refused.value.reason == "rateLimitExceeded"


def test_a_result_is_bounded_in_bytes(own_book: Ledger, monkeypatch) -> None:
    monkeypatch.setattr(bigquery, "MAX_RESULT_BYTES", 1000)  # six whole records are ~2,000 bytes
    with pytest.raises(QueryError, match="over 1000 bytes"):
        ask(own_book, f"SELECT jsonPayload FROM {TABLE}", timeoutMs=60_000)
    assert ask(own_book, f"SELECT jsonPayload.step FROM {TABLE}")["totalRows"] == "6"


def _row(payload: dict, label: str = "eval") -> dict:
    return {
        "insertId": "x",
        "json": {"labels": {ledger.LABEL_KEY: label}, "severity": "INFO", "jsonPayload": payload},
    }


def test_insert_all_rows_load_under_their_label_beside_the_sinks(own_book: Ledger) -> None:
    fields = ledger.record({"step": 26, "tuningJobId": "7"}, {}, {"form": "malzuma"}, "poem", 0.9, {}, "ok")
    answer = own_book.insert("p", "d", TABLE, {"rows": [_row(fields), _row(fields)]})
    assert "insertErrors" not in answer
    per_label = ask(
        own_book, f"SELECT labels.{ledger.LABEL_KEY} AS l, COUNT(*) AS n FROM {TABLE} GROUP BY 1 ORDER BY 1"
    )
    assert [[c["v"] for c in r["f"]] for r in per_label["rows"]] == [["eval", "2"], [ledger.LABEL_VALUE, "6"]]


def test_insert_all_refuses_a_field_the_table_lacks_and_stops_the_rest(own_book: Ledger) -> None:
    good = ledger.record({"step": 1}, {}, {}, "poem", 0.1, {}, "ok")
    answer = own_book.insert("p", "d", TABLE, {"rows": [_row(good), _row({**good, "injected": 1})]})
    reasons = {e["index"]: e["errors"][0]["reason"] for e in answer["insertErrors"]}
    assert reasons == {0: "stopped", 1: "invalid"}
    assert ask(own_book, f"SELECT COUNT(*) FROM {TABLE}")["rows"][0]["f"][0]["v"] == "6"  # nothing written
    with pytest.raises(QueryError, match="Not found: Table"):
        own_book.insert("p", "d", "other_table", {"rows": [_row(good)]})
    with pytest.raises(QueryError, match="rows must be a list"):
        own_book.insert("p", "d", TABLE, {"rows": {"not": "a list"}})
