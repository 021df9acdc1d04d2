"""The HTTP contract (docs/scorer.md, "HTTP contract") against the real `python -m scorer` process."""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from polling import poll
from scorer.app import MAX_BODY
from servers import scorer

pytestmark = pytest.mark.slow  # every test talks to a scorer process

MALZUMA = (Path(__file__).resolve().parent.parent / "data" / "samples" / "malzuma.txt").read_text(
    encoding="utf-8"
)


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with scorer() as u:
        yield u


JSON = {"content-type": "application/json"}


def body(text: str = MALZUMA, form: str | None = "malzuma", **extra: object) -> dict:
    refs = {"form": form} if form is not None else {}
    return {
        "example": {"systemInstruction": {"parts": [{"text": "x"}]}, "contents": [], "references": refs},
        "response": {"role": "model", "parts": [{"text": "thinking", "thought": True}, {"text": text}]},
        "metadata": {"step": 12, "tuning_job_id": "123"},
        **extra,
    }


def test_healthz(url: str) -> None:
    assert requests.get(url + "/healthz", timeout=5).status_code == 200


@pytest.mark.parametrize("path", ["/", "/score", "/any/other/path"])
def test_a_correct_poem_scores_high_on_any_path(url: str, path: str) -> None:
    r = requests.post(url + path, json=body(), timeout=5)
    assert r.status_code == 200
    doc = r.json()
    assert 0.85 <= doc["reward"] <= 1.0
    aux = json.loads(doc["user_requested_aux_info"])
    assert "main" in aux["scores"] and aux["reason"].startswith("malzuma")


@pytest.mark.parametrize(
    "payload",
    [
        body(form=None),
        body(form="sonnet"),
        body(text=""),
        {
            "response": {"role": "model", "parts": [{"text": MALZUMA, "thought": True}]},
            "example": {"references": {"form": "malzuma"}},
        },
        {"response": {"role": "model"}, "example": {"references": {"form": "malzuma"}}},
        {"response": {"parts": []}},
    ],
)
def test_no_poem_or_no_form_is_200_minus_one(url: str, payload: dict) -> None:
    r = requests.post(url, json=payload, timeout=5)
    assert r.status_code == 200
    doc = r.json()
    assert doc["reward"] == -1.0
    assert json.loads(doc["user_requested_aux_info"])["reason"]


@pytest.mark.parametrize(
    "meta", [{"tuningJobId": 5}, {"tuning_job_id": 7}, {"tuningJobId": "x"}, None, "odd"]
)
def test_metadata_variants_are_accepted(url: str, meta: object) -> None:
    payload = body()
    payload["metadata"] = meta
    assert requests.post(url, json=payload, timeout=5).status_code == 200


def test_optional_parts_may_be_missing(url: str) -> None:
    payload = {"example": {"references": {"form": "malzuma"}}, "response": {"parts": [{"text": MALZUMA}]}}
    r = requests.post(url, json=payload, timeout=5)
    assert r.status_code == 200 and r.json()["reward"] > 0.85


@pytest.mark.parametrize(
    "raw",
    [
        b"not json",
        b"[]",
        b"{}",
        b'{"response": 3}',
        b'{"response": {"parts": {}}}',
        b'{"response": {"parts": "x"}}',
    ],
)
def test_a_body_that_is_not_the_contract_is_400_json(url: str, raw: bytes) -> None:
    r = requests.post(url, data=raw, headers={"content-type": "application/json"}, timeout=5)
    assert r.status_code == 400
    assert "error" in r.json()


def test_over_max_body_is_413(url: str) -> None:
    big = json.dumps(body(text="ا" * MAX_BODY)).encode()
    r = requests.post(url, data=big, headers=JSON, timeout=30)
    assert r.status_code == 413


def test_just_under_max_body_is_scored(url: str) -> None:
    text = ("يا بحر يا موجك غدّار ** خذيت مني ضي النهار " * 30_000).encode()[: MAX_BODY - 1000]
    data = json.dumps(body(text=text.decode("utf-8", "ignore")), ensure_ascii=False).encode()
    assert MAX_BODY - 5000 < len(data) <= MAX_BODY
    r = requests.post(url, data=data, headers=JSON, timeout=30)
    assert r.status_code == 200
    assert math.isfinite(r.json()["reward"])


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"content-type": "text/plain", "origin": "https://evil.example"}, 403),  # a page's simple POST
        ({"content-type": "application/json", "origin": "null"}, 403),
        ({"content-type": "text/plain"}, 415),
        ({"content-type": "application/x-www-form-urlencoded"}, 415),
        ({}, 200),  # no browser sends a body without a type; Vertex sends JSON
        ({"content-type": "application/json; charset=utf-8"}, 200),
    ],
)
def test_only_what_vertex_sends_is_taken(url: str, headers: dict, status: int) -> None:
    before = requests.get(url + "/healthz", timeout=5).json()["ledger"]
    r = requests.post(url, data=json.dumps(body()).encode(), headers=headers, timeout=5)
    assert r.status_code == status and (status != 200) == ("error" in r.json())
    after = requests.get(url + "/healthz", timeout=5).json()["ledger"]
    assert after["written"] - before["written"] == (status == 200)  # a refused request writes nothing


def test_the_reward_is_the_same_as_the_pure_core(url: str) -> None:
    from scorer.score import score

    r = requests.post(url, json=body(), timeout=5).json()
    assert r["reward"] == score(MALZUMA, {"form": "malzuma"}).reward


def test_worker_processes_serve_the_same_reward_and_stop_together() -> None:
    """WEB_CONCURRENCY=2: two processes on one port (SO_REUSEPORT); stopping the service frees it."""
    import socket
    from urllib.parse import urlsplit

    from scorer.score import score

    with scorer(env={"WEB_CONCURRENCY": "2"}) as u:
        port = urlsplit(u).port
        with requests.Session() as a, requests.Session() as b:  # two connections
            for s in (a, b):
                r = s.post(u, json=body(), timeout=5)
                assert r.status_code == 200
                assert r.json()["reward"] == score(MALZUMA, {"form": "malzuma"}).reward

    def refused() -> bool:
        with socket.socket() as probe:
            return probe.connect_ex(("127.0.0.1", port)) != 0

    poll(refused, timeout=5, what=f"no worker process to hold port {port}", interval=0.1)


def test_a_request_in_flight_never_holds_healthz(url: str) -> None:
    """Long scoring calls (the costliest 20,000 characters the scorer reads, four in flight) run off the
    event loop: `/healthz` (Cloud Run's probes, and the small requests behind) answers meanwhile in a
    small part of one call's time. Scored on the event loop, a probe waits behind the queue of calls,
    one call's time or more. Judged by medians against the calls' own measured time, not a fixed
    number of milliseconds, so that how loaded the machine is (other tests run beside this one)
    does not decide."""
    import threading
    import time

    heavy = json.dumps(body("**a " * 5_000 + "<think>" * 2_000)).encode()
    stop = threading.Event()
    scored: list[int] = []
    took: list[float] = []

    def load() -> None:
        with requests.Session() as s:
            while not stop.is_set():
                t0 = time.perf_counter()
                scored.append(s.post(url, data=heavy, timeout=30).status_code)
                took.append(time.perf_counter() - t0)

    workers = [threading.Thread(target=load) for _ in range(4)]
    for w in workers:
        w.start()
    waits: list[float] = []
    try:
        with requests.Session() as s:
            deadline = time.monotonic() + 3
            while time.monotonic() < deadline:
                t0 = time.perf_counter()
                assert s.get(url + "/healthz", timeout=5).status_code == 200
                waits.append(time.perf_counter() - t0)
                time.sleep(0.01)
    finally:
        stop.set()
        for w in workers:
            w.join()
    assert scored and set(scored) == {200}, "the heavy requests were not all scored"
    probe, call = statistics.median(waits), statistics.median(took)
    assert len(waits) >= 50 and len(took) >= 8, (len(waits), len(took))
    assert probe < 0.25 * call, f"/healthz median {probe * 1000:.0f} ms, calls {call * 1000:.0f} ms"


def _stat(pid: int | str) -> list[str] | None:
    """`/proc/PID/stat` past the command name: [state, ppid, …], or None once the process is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def _alive(pid: int) -> bool:
    stat = _stat(pid)
    return stat is not None and stat[0] != "Z"


def test_the_scoring_process_leaves_with_the_server() -> None:
    """A large body starts a scoring process of its own; killing the server leaves no orphan behind
    (an orphan would keep running, and keep the caller's output pipe open)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from tunifolk.processes import free_port, wait_healthy

    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "scorer"],
        env={**os.environ, "PORT": str(port), "HOST": "127.0.0.1"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc=proc)
        big = json.dumps(body("يا بحر يا موجك غدّار ** خذيت مني ضي النهار\n" * 400)).encode()
        assert requests.post(url, data=big, timeout=60).status_code == 200
        workers = [
            int(pid)
            for pid in filter(str.isdigit, os.listdir("/proc"))
            if (stat := _stat(pid)) is not None and int(stat[1]) == proc.pid
        ]
        assert workers, "a large body was not scored in a process of its own"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(map(_alive, workers)):
        time.sleep(0.2)
    assert not any(map(_alive, workers)), f"scoring processes outlived the server: {workers}"
