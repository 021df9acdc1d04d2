"""The scorer under a stdout nobody reads and a scoring process that dies: every request is still
answered 200 with a finite reward, `/healthz` stays quick, and each record is written or counted.
Real `python -m scorer` processes."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import requests

from scorer import app, ledger
from tunifolk.paths import ROOT
from tunifolk.processes import free_port, stop, wait_healthy

pytestmark = pytest.mark.slow  # scorer processes

JSON = {"content-type": "application/json"}
LINE = "يا بحر يا موجك غدّار ** خذيت مني ضي النهار\n"


def body(text: str, step: int = 1, **meta: object) -> bytes:
    doc = {
        "example": {"contents": [], "references": {"form": "malzuma"}},
        "response": {"parts": [{"text": text}]},
        "metadata": {"step": step, "tuning_job_id": "9", **meta},
    }
    return json.dumps(doc, ensure_ascii=False).encode()


def start(stdout: object) -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "scorer"],
        cwd=ROOT,
        stdout=stdout,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PORT": str(port), "HOST": "127.0.0.1"},
    )
    url = f"http://127.0.0.1:{port}"
    wait_healthy(url, proc=proc)
    return proc, url


def test_a_stdout_nobody_reads_blocks_no_answer_and_no_healthz() -> None:
    proc, url = start(subprocess.PIPE)  # a pipe that is never read fills at 64 KiB
    try:
        big = body(LINE * 1200)  # a record of ~60,000 characters: two fill the pipe
        with ThreadPoolExecutor(8) as pool:
            answers = list(
                pool.map(lambda _: requests.post(url, data=big, headers=JSON, timeout=60), range(8))
            )
        assert all(a.status_code == 200 and math.isfinite(a.json()["reward"]) for a in answers)
        started = time.monotonic()
        health = requests.get(url + "/healthz", timeout=5).json()["ledger"]
        assert time.monotonic() - started < 1.0
        assert health["written"] + health["queued"] + health["dropped"] >= 8
        assert health["late"] >= 1 and health["queued"] >= 1  # held back, counted, not lost
    finally:
        stop(proc)


def test_a_record_utf8_cannot_hold_is_still_written(tmp_path: Path) -> None:
    out = tmp_path / "stdout"
    with open(out, "ab") as sink:
        proc, url = start(sink)
        try:
            raw = body("x").replace(b'"x"', b'"poem \\udc80 with a lone surrogate"')
            for data in (
                raw,
                body("y", step=10**400 if False else 0).replace(b'"step": 0', b'"step": 1e400'),
            ):
                answer = requests.post(url, data=data, headers=JSON, timeout=10)
                assert answer.status_code == 200 and math.isfinite(answer.json()["reward"])
            health = requests.get(url + "/healthz", timeout=5).json()["ledger"]
        finally:
            stop(proc)
    records = [r for r in map(ledger.parse_line, out.read_bytes().splitlines()) if r]
    assert len(records) == 2 and health["unrecorded"] == 0
    assert "\\udc80" in records[0][ledger.RESPONSE] and records[1][ledger.STEP] == -1


def children(pid: int) -> list[int]:
    """The processes `pid` started, from any of its threads (the scoring process is started from one)."""
    found = [
        p for task in Path(f"/proc/{pid}/task").iterdir() for p in (task / "children").read_text().split()
    ]
    return [int(p) for p in found if "spawn_main" in Path(f"/proc/{p}/cmdline").read_text()]


def test_a_scoring_process_that_dies_is_answered_200_and_replaced() -> None:
    proc, url = start(subprocess.DEVNULL)
    try:
        large = body(LINE * 400)  # over INLINE_BODY: scored in the scoring process
        assert len(large) > app.INLINE_BODY
        first = requests.post(url, data=large, headers=JSON, timeout=30).json()["reward"]
        (worker,) = children(proc.pid)
        os.kill(worker, signal.SIGSTOP)  # the next large body waits in it ...
        with ThreadPoolExecutor(1) as pool:
            pending = pool.submit(requests.post, url, data=large, headers=JSON, timeout=30)
            time.sleep(0.5)
            os.kill(worker, signal.SIGKILL)  # ... and it dies mid-request
            died = pending.result()
        assert died.status_code == 200 and died.json()["reward"] == -1.0
        assert "scoring process" in json.loads(died.json()["user_requested_aux_info"])["reason"]
        again = requests.post(url, data=large, headers=JSON, timeout=30)
        assert again.status_code == 200 and again.json()["reward"] == first  # a new process scores
    finally:
        stop(proc)


def test_a_body_that_stalls_is_dropped_and_its_memory_with_it(monkeypatch) -> None:
    """A client that declares a body and stops sending gets 408 after BODY_SECONDS, not a connection
    held for ever (many such clients held hundreds of MiB)."""
    import socket

    proc, url = start(subprocess.DEVNULL)
    try:
        host, port = url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=app.BODY_SECONDS + 20) as conn:
            conn.sendall(
                b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Content-Length: 1000000\r\n\r\n" + b"{" * 1000
            )
            started = time.monotonic()
            answer = conn.recv(200)
        assert answer.startswith(b"HTTP/1.1 408"), answer
        assert app.BODY_SECONDS - 1 <= time.monotonic() - started <= app.BODY_SECONDS + 15
    finally:
        stop(proc)


def test_a_second_content_type_does_not_launder_the_first() -> None:
    proc, url = start(subprocess.DEVNULL)
    try:
        import http.client

        host, port = url.removeprefix("http://").split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=10)
        conn.putrequest("POST", "/")
        conn.putheader("Content-Type", "text/plain")
        conn.putheader("Content-Type", "application/json")
        data = body("x")
        conn.putheader("Content-Length", str(len(data)))
        conn.endheaders(data)
        assert conn.getresponse().status == 415
    finally:
        stop(proc)
