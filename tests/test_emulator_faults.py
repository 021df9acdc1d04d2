"""Injected faults: seeded, off by default, never on /healthz or /emulator/, and the create faults
that create-or-adopt must survive."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import requests

from emulator_api import admin, api, create_job, google_error, job_body, ok, parent, wait_for, world

pytestmark = pytest.mark.slow  # every test starts its own emulator

JOBS = parent() + "/tuningJobs"


def statuses(url: str, n: int = 40) -> list[int]:
    return [requests.get(api(url, JOBS), timeout=10).status_code for _ in range(n)]


def test_503_faults_spare_healthz_and_admin(tmp_path: Path) -> None:
    with world(tmp_path, "--fault-503-rate", "1") as (url, *_):
        google_error(requests.get(api(url, JOBS), timeout=10), 503, "UNAVAILABLE")
        assert requests.get(url + "/healthz", timeout=10).status_code == 200
        assert admin(url, "requests")["faultsInjected"]["503"] == 1


def test_429_faults_carry_retry_after_zero(tmp_path: Path) -> None:
    with world(tmp_path, "--fault-429-rate", "1", "--retry-after", "0") as (url, *_):
        r = requests.get(api(url, JOBS), timeout=10)
        google_error(r, 429, "RESOURCE_EXHAUSTED", "RATE_LIMIT_EXCEEDED")
        assert r.headers["Retry-After"] == "0"


def test_html_error_pages_and_latency(tmp_path: Path) -> None:
    with world(tmp_path, "--fault-html-rate", "1", "--fault-latency-ms", "200") as (url, *_):
        t0 = time.monotonic()
        r = requests.get(api(url, JOBS), timeout=10)
        assert time.monotonic() - t0 >= 0.1
        assert r.status_code == 502
        assert r.headers["content-type"].startswith("text/html")
        assert "<html" in r.text


def test_faults_repeat_for_a_seed(tmp_path: Path) -> None:
    runs = []
    for i in range(2):
        with world(
            tmp_path / str(i), "--fault-503-rate", "0.3", "--fault-429-rate", "0.2", "--fault-seed", "7"
        ) as (
            url,
            *_,
        ):
            runs.append(statuses(url))
    assert runs[0] == runs[1]
    assert {200, 503, 429} <= set(runs[0])


def test_create_fault_before_stores_nothing(tmp_path: Path) -> None:
    with world(tmp_path, "--create-fault", "before") as (url, rs, train, val):
        body = job_body(train, val, rs.url + "/ok", labels={"tunifolk-spec": "aaaa"})
        google_error(requests.post(api(url, JOBS), json=body, timeout=10), 503, "UNAVAILABLE")
        flt = {"filter": 'labels.tunifolk-spec="aaaa"'}
        assert ok(requests.get(api(url, JOBS), params=flt, timeout=10), "ListTuningJobsResponse") == {}
        job = create_job(url, body)
        listed = ok(requests.get(api(url, JOBS), params=flt, timeout=10), "ListTuningJobsResponse")
        assert [j["name"] for j in listed["tuningJobs"]] == [job["name"]]


def test_create_fault_after_leaves_a_job_to_adopt(tmp_path: Path) -> None:
    with world(tmp_path, "--create-fault", "after") as (url, rs, train, val):
        body = job_body(train, val, rs.url + "/ok", labels={"tunifolk-spec": "bbbb"})
        google_error(requests.post(api(url, JOBS), json=body, timeout=10), 503, "UNAVAILABLE")
        flt = {"filter": 'labels.tunifolk-spec="bbbb"'}
        (job,) = ok(requests.get(api(url, JOBS), params=flt, timeout=10), "ListTuningJobsResponse")[
            "tuningJobs"
        ]
        assert wait_for(url, job["name"], {"JOB_STATE_SUCCEEDED"})["state"] == "JOB_STATE_SUCCEEDED"
        create_job(url, body)  # later creates work
