"""The Vertex client against the emulator as a real server: sharp edges, faults, shapes.

Why this file exists: test_vertex_client.py checks the client against a scripted server and
test_emulator*.py check the emulator with raw `requests`. Neither proves that *our* client, with
its real requests/tenacity stack, gets through what the emulator says Google does (seeded 503s and
429s, HTML error pages, an ambiguous create, paged lists, the metrics chain, LRO cleanup). Here both
sides are real processes and nothing is mocked.

Every exchange the client makes is recorded through a `requests` response hook (an observer, not a
stand-in) and, when the test ends, each request body and each 2xx response body is validated
against Google's discovery document; a call to a path the table below does not know fails the test,
so a new call cannot slip through unchecked.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

import servers
from discovery import ShapeError, validate
from emulator_api import admin
from jobs import PROJECT, SEEDED_FAULTS, inputs
from polling import job_state
from tunifolk import operations
from tunifolk.job import bodies, checks, fields, verdict
from tunifolk.job.limits import TERMINAL_STATES
from tunifolk.metrics import read_metrics
from tunifolk.vertex import (
    API_VERSION,
    BATCH_READ_LIMIT,
    ENDPOINT_ENV,
    RetryPolicy,
    VertexClient,
    VertexError,
)

LOCATION = "us-central1"
PARENT = f"projects/{PROJECT}/locations/{LOCATION}"
STEP = ("--step-seconds", "0.01")
# Same attempt count as the default policy (8), only faster backoff, so retry budgets are the real ones.
FAST = RetryPolicy(initial=0.01, maximum=0.05)
DEADLINE = 30.0
# 15 job-wide series + 12 per reward (structure: Cloud Run, poetic_quality: autorater).
JOB_SERIES = {
    "/train_mean_reward", "/eval_mean_reward", "/train_generation_length", "/eval_generation_length",
    "/train_thinking_token_length", "/eval_thinking_token_length", "/train_mean_reward_latency",
    "/eval_mean_reward_latency", "/train_p95_reward_latency", "/eval_p95_reward_latency",
    "/train_mean_sampling_latency", "/eval_mean_sampling_latency", "/train_p95_sampling_latency",
    "/eval_p95_sampling_latency", "/learnable_prompt_ratio",
}  # fmt: skip
REWARD_SERIES = {
    "train_mean_reward", "eval_mean_reward", "train_processing_time", "eval_processing_time",
    "train_p95_processing_time", "eval_p95_processing_time", "train_rpc_error_ratio", "eval_rpc_error_ratio",
    "train_invalid_rpc_response_ratio", "eval_invalid_rpc_response_ratio", "train_clipping_rewards_ratio",
    "eval_clipping_rewards_ratio",
}  # fmt: skip
EXPECTED_SERIES = JOB_SERIES | {f"{r}/{s}" for r in ("structure", "poetic_quality") for s in REWARD_SERIES}

# --- shapes: every route the client may call, with its request and response schemas ---------------

_N = r"projects/[^/:]+/locations/[^/:]+"
_TB = _N + r"/tensorboards/[^/:]+"
_RUN = _TB + r"/experiments/[^/:]+/runs/[^/:]+"
# (method, path regex under /v1beta1/, request schema or None, 2xx response schema)
ROUTES: list[tuple[str, re.Pattern[str], str | None, str]] = [
    (m, re.compile(p + "$"), req, resp)
    for m, p, req, resp in [
        ("POST", _N + r"/tuningJobs", "TuningJob", "TuningJob"),
        ("GET", _N + r"/tuningJobs", None, "ListTuningJobsResponse"),
        ("GET", _N + r"/tuningJobs/[^/:]+", None, "TuningJob"),
        ("POST", _N + r"/tuningJobs/[^/:]+:cancel", "CancelTuningJobRequest", "GoogleProtobufEmpty"),
        (
            "POST",
            _N + r"(?:/tuningJobs)?:validateReinforcementTuningReward",
            "ValidateReinforcementTuningRewardRequest",
            "ValidateReinforcementTuningRewardResponse",
        ),
        (
            "POST",
            _N + r"/(?:publishers/google/models|endpoints)/[^/:]+:generateContent",
            "GenerateContentRequest",
            "GenerateContentResponse",
        ),
        ("GET", _N + r"/endpoints/[^/:]+", None, "Endpoint"),
        (
            "POST",
            _N + r"/endpoints/[^/:]+:undeployModel",
            "UndeployModelRequest",
            "GoogleLongrunningOperation",
        ),
        ("DELETE", _N + r"/(?:endpoints|models)/[^/:]+", None, "GoogleLongrunningOperation"),
        ("GET", _N + r"/models/[^/:]+", None, "Model"),
        ("GET", r".+/operations/[^/:]+", None, "GoogleLongrunningOperation"),
        ("GET", _N + r"/metadataStores/default/contexts/[^/:]+", None, "Context"),
        ("GET", _TB + r"/experiments", None, "ListTensorboardExperimentsResponse"),
        ("GET", _TB + r"/experiments/[^/:]+/runs", None, "ListTensorboardRunsResponse"),
        ("GET", _RUN + r"/timeSeries", None, "ListTensorboardTimeSeriesResponse"),
        ("GET", _TB + r":batchRead", None, "BatchReadTensorboardTimeSeriesDataResponse"),
        ("GET", _RUN + r"/timeSeries/[^/:]+:read", None, "ReadTensorboardTimeSeriesDataResponse"),
    ]
]


@dataclass
class Exchange:
    """One HTTP request the client really sent, and what came back."""

    method: str
    url: str
    headers: dict[str, str]
    body: Any
    status: int
    content_type: str
    response: Any

    @property
    def path(self) -> str:
        return urlsplit(self.url).path

    @property
    def query(self) -> dict[str, list[str]]:
        return parse_qs(urlsplit(self.url).query)


@dataclass
class Recorder:
    """Observes a client's session; `check()` validates every recorded body against discovery."""

    exchanges: list[Exchange] = field(default_factory=list)

    def attach(self, client: VertexClient) -> VertexClient:
        client._session.hooks["response"].append(self._hook)
        return client

    def _hook(self, resp: requests.Response, *args: Any, **kwargs: Any) -> None:
        req = resp.request
        raw = req.body.decode() if isinstance(req.body, bytes) else req.body
        ctype = resp.headers.get("content-type", "")
        payload = resp.json() if ctype.startswith("application/json") and resp.content else None
        self.exchanges.append(
            Exchange(
                req.method or "",
                req.url or "",
                dict(req.headers),
                json.loads(raw) if raw else None,
                resp.status_code,
                ctype,
                payload,
            )
        )

    def check(self) -> int:
        """Validate every request body and 2xx response; errors must be Google JSON or an HTML page."""
        for ex in self.exchanges:
            check_exchange(ex)
        return len(self.exchanges)

    def calls(self, method: str, pattern: str) -> list[Exchange]:
        rx = re.compile(pattern)
        return [ex for ex in self.exchanges if ex.method == method and rx.search(ex.path)]


def check_exchange(ex: Exchange) -> None:
    prefix = f"/{API_VERSION}/"
    if not ex.path.startswith(prefix):
        raise ShapeError(f"{ex.method} {ex.path}: not a {API_VERSION} path")
    rest = ex.path.removeprefix(prefix)
    known = [(req, resp) for method, rx, req, resp in ROUTES if method == ex.method and rx.match(rest)]
    if not known:
        raise ShapeError(f"{ex.method} {ex.path}: no schema known for this call")
    req_schema, resp_schema = known[0]
    if req_schema is not None:
        validate(req_schema, ex.body)
    elif ex.body is not None:
        raise ShapeError(f"{ex.method} {ex.path}: sent a body {ex.body!r} on a call that takes none")
    if 200 <= ex.status < 300:
        validate(resp_schema, ex.response)
    elif ex.content_type.startswith("application/json"):
        error = (ex.response or {}).get("error")
        if not isinstance(error, dict) or error.get("code") != ex.status or not error.get("message"):
            raise ShapeError(
                f"{ex.method} {ex.path}: error {ex.status} is not Google's shape: {ex.response!r}"
            )
    elif not ex.content_type.startswith("text/html"):
        raise ShapeError(f"{ex.method} {ex.path}: error {ex.status} with content type {ex.content_type!r}")


# --- fixtures and helpers -------------------------------------------------------------------------


Factory = Callable[..., tuple[VertexClient, Recorder]]


@pytest.fixture
def make_client() -> Iterator[Factory]:
    """Build recorded clients; at teardown every exchange any of them made is shape-checked."""
    made: list[tuple[VertexClient, Recorder]] = []

    def build(endpoint: str | None = None, **kw: Any) -> tuple[VertexClient, Recorder]:
        kw.setdefault("retry", FAST)
        rec = Recorder()
        client = rec.attach(VertexClient(endpoint=endpoint, **kw))
        made.append((client, rec))
        return client, rec

    yield build
    for client, rec in made:
        client.close()
        rec.check()


def checked_inputs(scorer: str, **over: Any) -> dict[str, Any]:
    report = checks.check_inputs(inputs(scorer, **over))
    assert report.failures == []
    return report.inputs


def wait_state(
    client: VertexClient, name: str, states: Collection[str], timeout: float = DEADLINE
) -> dict[str, Any]:
    return job_state(lambda: client.get_tuning_job(name), states, timeout)


def serving_names(job: dict[str, Any]) -> tuple[list[str], str]:
    tuned = job["tunedModel"]
    endpoints = [tuned["endpoint"], *(c["endpoint"] for c in tuned.get("checkpoints", []))]
    return list(dict.fromkeys(endpoints)), tuned["model"].split("@", 1)[0]


def remove_serving(client: VertexClient, job: dict[str, Any]) -> None:
    """The cleanup chain, call by call: get → undeploy → wait → delete endpoint, then the model."""
    endpoints, model = serving_names(job)
    for endpoint in endpoints:
        found = client.get_endpoint(endpoint)
        assert found["deployedModels"], endpoint
        for deployed in found["deployedModels"]:
            op = client.undeploy_model(endpoint, deployed["id"])
            client.get_operation(op["name"])  # the emulator answers done; read it back anyway
            client.wait_operation(op, timeout=DEADLINE, poll=0.01)
        client.wait_operation(client.delete_endpoint(endpoint), timeout=DEADLINE, poll=0.01)
    client.wait_operation(client.delete_model(model), timeout=DEADLINE, poll=0.01)


def assert_gone(client: VertexClient, job: dict[str, Any]) -> None:
    endpoints, model = serving_names(job)
    for name in [*endpoints, model]:
        with pytest.raises(VertexError) as err:
            client.request("GET", client.url(name))
        assert err.value.not_found, str(err.value)


def assert_one_line(err: VertexError, status: int) -> None:
    text = str(err)
    assert err.status == status
    assert "\n" not in text and "\r" not in text, text
    assert str(status) in text and "<" not in text, text


@pytest.fixture(scope="module")
def succeeded(emu: str, scorer_uri: str) -> dict[str, Any]:
    """One two-reward job run to SUCCEEDED through the client (shape-checked like every test)."""
    rec = Recorder()
    with rec.attach(VertexClient(endpoint=emu, retry=FAST)) as client:
        body = bodies.build_tuning_job(checked_inputs(scorer_uri))
        job = client.create_tuning_job(PARENT, body)
        done = wait_state(client, job["name"], TERMINAL_STATES)
    rec.check()
    assert done["state"] == "JOB_STATE_SUCCEEDED", done.get("error")
    return done


# --- sharp edges at the client level ----------------------------------------------------------------


def test_shape_checker_rejects_what_discovery_does_not_know() -> None:
    """The end-of-test shape check must be able to fail, or every test here proves less than it says."""
    url = f"http://h/v1beta1/{PARENT}/tuningJobs/1:cancel"
    good = Exchange("POST", url, {}, {}, 200, "application/json", {})
    check_exchange(good)
    for bad in (
        Exchange(**{**good.__dict__, "body": {"force": True}}),
        Exchange(**{**good.__dict__, "url": f"http://h/v1/{PARENT}/tuningJobs/1:cancel"}),
        Exchange(**{**good.__dict__, "url": f"http://h/v1beta1/{PARENT}/tuningJobs/1:delete"}),
        Exchange(**{**good.__dict__, "status": 500, "response": {"oops": 1}}),
    ):
        with pytest.raises(ShapeError):
            check_exchange(bad)


def test_loopback_endpoint_from_env_pins_v1beta1_and_sends_no_credentials(
    emu: str, make_client: Factory, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The emulator does not record API request headers, so the headers are read on the client side:
    what `requests` actually sent. ADC points at a missing file, so any credential lookup would fail."""
    monkeypatch.setenv(ENDPOINT_ENV, emu + "/")
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "missing.json"))
    client, rec = make_client()
    assert client.endpoint == emu
    job_url = client.url(f"{PARENT}/tuningJobs/1")
    serve_url = client.url(f"projects/{PROJECT}/locations/us/endpoints/9", ":generateContent")
    assert job_url == f"{emu}/v1beta1/{PARENT}/tuningJobs/1"
    assert serve_url == f"{emu}/v1beta1/projects/{PROJECT}/locations/us/endpoints/9:generateContent"
    client.list_tuning_jobs(PARENT)
    assert client.judge_available(PROJECT, LOCATION, "gemini-2.5-flash")
    assert len(rec.exchanges) == client.calls == 2
    for ex in rec.exchanges:
        assert ex.path.startswith("/v1beta1/")
        assert not any(h.lower() == "authorization" for h in ex.headers), ex.headers
    assert all(key.split(" ", 1)[1].startswith("/v1beta1/") for key in admin(emu, "requests")["counts"])


def test_validate_under_tuning_jobs_with_field_example(
    scorer_uri: str, emu: str, make_client: Factory
) -> None:
    """Edge 4: the client's validate call reaches the real scorer and both rewards come back clean."""
    client, rec = make_client(emu)
    props = checked_inputs(scorer_uri)
    response = client.validate_reward(PARENT, bodies.build_validate_request(props))
    assert verdict.validation_problems(response, bodies.reward_names(props)) == []
    assert set(response["rewardInfoDetails"]) == {"structure", "poetic_quality"}
    (call,) = rec.exchanges
    assert call.path == f"/v1beta1/{PARENT}/tuningJobs:validateReinforcementTuningReward"
    assert "example" in call.body and "reinforcementTuningExample" not in call.body


def test_location_level_validate_404_html_is_one_line(
    scorer_uri: str, emu: str, make_client: Factory
) -> None:
    """Google answers the path without `/tuningJobs` with an HTML page; the error must stay one line,
    and a 404 is final, so it is sent exactly once."""
    client, rec = make_client(emu)
    body = bodies.build_validate_request(checked_inputs(scorer_uri))
    url = f"{emu}/v1beta1/projects/p/locations/us-central1:validateReinforcementTuningReward"
    with pytest.raises(VertexError) as err:
        client.request("POST", url, body=body)
    assert_one_line(err.value, 404)
    assert "Not Found" in str(err.value)
    assert client.calls == 1 and rec.exchanges[0].content_type.startswith("text/html")


@pytest.mark.parametrize(
    ("location", "model", "expected"),
    [
        (LOCATION, "gemini-2.5-pro", True),
        ("europe-west4", "gemini-2.5-flash", True),
        (LOCATION, f"projects/{PROJECT}/locations/{LOCATION}/publishers/google/models/gemini-2.5-pro", True),
        (LOCATION, "gemini-3-pro-preview", False),
        ("us-east1", "gemini-2.5-pro", False),  # availability is per region
    ],
)
def test_judge_probe(emu: str, make_client: Factory, location: str, model: str, expected: bool) -> None:
    client, rec = make_client(emu)
    assert client.judge_available(PROJECT, location, model) is expected
    (call,) = rec.exchanges
    bare = model.rsplit("/", 1)[-1]
    assert call.path.endswith(f"/locations/{location}/publishers/google/models/{bare}:generateContent")


def test_list_tuning_jobs_follows_page_tokens(scorer_uri: str, emu: str, make_client: Factory) -> None:
    client, rec = make_client(emu)
    names = set()
    for i in range(3):
        body = bodies.build_tuning_job(
            checked_inputs(scorer_uri, description=f"page {i}", labels={"suite": "pages"})
        )
        names.add(client.create_tuning_job(PARENT, body)["name"])
    before = len(rec.exchanges)
    listed = client.list_tuning_jobs(PARENT, filter='labels.suite="pages"', page_size=1)
    assert sorted(j["name"] for j in listed) == sorted(names)
    pages = rec.exchanges[before:]
    assert len(pages) == 3
    assert [("pageToken" in p.query) for p in pages] == [False, True, True]
    assert all(p.query["pageSize"] == ["1"] for p in pages)
    assert len(client.list_tuning_jobs(PARENT, filter='labels.suite="pages"')) == 3


def test_cancel_ends_cancelled(scorer_uri: str, emu: str, make_client: Factory) -> None:
    """Long enough (64 // 16 × 50 = 200 steps) that cancel lands while the job is still live."""
    client, _ = make_client(emu)
    props = checked_inputs(scorer_uri)
    props["hyper_parameters"]["epoch_count"] = 50
    job = client.create_tuning_job(PARENT, bodies.build_tuning_job(props))
    assert client.cancel_tuning_job(job["name"]) == {}
    assert wait_state(client, job["name"], TERMINAL_STATES)["state"] == "JOB_STATE_CANCELLED"


def test_metrics_chain_reads_39_series_in_few_calls(
    succeeded: dict[str, Any], emu: str, make_client: Factory, capsys: pytest.CaptureFixture[str]
) -> None:
    """The chain context → experiments → runs → series → batchRead, in ≤ 20 series per batchRead."""
    client, rec = make_client(emu)
    metrics = read_metrics(client, succeeded["experiment"])
    assert set(metrics.series) == EXPECTED_SERIES and len(metrics.series) == 39
    assert metrics.calls == client.calls == len(rec.exchanges)
    assert metrics.calls == 5, metrics.calls  # context, runs, series list, 2 batchReads
    batches = rec.calls("GET", r":batchRead$")
    assert len(batches) == 2  # ceil(39 / 20)
    assert all(1 <= len(b.query["timeSeries"]) <= BATCH_READ_LIMIT for b in batches)
    assert sum(len(b.query["timeSeries"]) for b in batches) == 39
    assert metrics.tensorboard and metrics.last_step == 4  # 64 // 16 × 1 epoch; steps count from 1
    assert all(points for points in metrics.series.values())
    with capsys.disabled():
        print(f"\n[metrics] {len(metrics.series)} series in {metrics.calls} HTTP calls")


def test_read_one_series(succeeded: dict[str, Any], emu: str, make_client: Factory) -> None:
    """The single-series `:read` call, for a caller that wants one curve."""
    client, rec = make_client(emu)
    read_metrics(client, succeeded["experiment"])
    series = rec.calls("GET", r"/timeSeries$")[0].response["tensorboardTimeSeries"][0]
    data = client.read_time_series(series["name"], max_points=2)
    assert data["tensorboardTimeSeriesId"] == series["name"].rsplit("/", 1)[-1]
    assert 1 <= len(data["values"]) <= 2


def test_serve_then_cleanup_chain_leaves_404s(
    succeeded: dict[str, Any], emu: str, make_client: Factory
) -> None:
    """Tuned endpoints live in `locations/us`; cleanup undeploys, deletes them, then the model."""
    client, _ = make_client(emu)
    endpoints, _model = serving_names(succeeded)
    assert len(endpoints) == 3 and all("/locations/us/endpoints/" in e for e in endpoints)
    prompt = {"contents": [{"role": "user", "parts": [{"text": "اكتب ملزومة عن البحر"}]}]}
    answer = client.generate_content(endpoints[0], prompt)
    assert answer["candidates"][0]["content"]["parts"]
    remove_serving(client, succeeded)
    assert_gone(client, succeeded)
    with pytest.raises(VertexError) as err:
        client.generate_content(endpoints[0], prompt)
    assert err.value.not_found


# --- faults -------------------------------------------------------------------------------------------


def test_seeded_503_and_429_are_survived_within_the_retry_budget(
    gcs: Path, scorer_uri: str, make_client: Factory, capsys: pytest.CaptureFixture[str]
) -> None:
    """A whole run through 20 % 503s and 10 % 429s (Retry-After: 0), with the default 8 attempts.

    Every injected fault on an idempotent call costs exactly one retry; a faulted create is never
    retried by the client: create_or_adopt looks the job up by its label instead.
    """
    retries: list[str] = []
    with servers.emulator(*STEP, "--gcs-dir", str(gcs), *SEEDED_FAULTS) as url:
        client, rec = make_client(url, on_retry=retries.append)
        props = checked_inputs(scorer_uri)
        assert client.judge_available(PROJECT, LOCATION, "gemini-2.5-pro")
        assert not client.judge_available(PROJECT, LOCATION, "gemini-3-pro-preview")
        checked = client.validate_reward(PARENT, bodies.build_validate_request(props))
        assert verdict.validation_problems(checked, bodies.reward_names(props)) == []
        job = operations.create_or_adopt(client, props)
        done = wait_state(client, job["name"], TERMINAL_STATES)
        assert done["state"] == "JOB_STATE_SUCCEEDED"
        assert [j["name"] for j in client.list_tuning_jobs(PARENT, page_size=1)] == [job["name"]]
        assert len(read_metrics(client, done["experiment"]).series) == 39
        remove_serving(client, done)
        assert_gone(client, done)
        counts = admin(url, "requests")
        jobs = admin(url, "jobs")["jobs"]
    injected = counts["faultsInjected"]
    assert injected.get("503", 0) > 0 and injected.get("429", 0) > 0
    assert [j["name"] for j in jobs] == [job["name"]]  # never two jobs for one spec
    assert client.calls == sum(counts["counts"].values()) == len(rec.exchanges)
    creates = counts["counts"][f"POST /v1beta1/{PARENT}/tuningJobs"]
    assert len(retries) == sum(injected.values()) - (creates - 1)
    attempts = [int(m) for m in re.findall(r"attempt (\d+),", "\n".join(retries))]
    assert max(attempts) < FAST.attempts
    for line in retries:
        assert "\n" not in line
        if "→ 429" in line:
            assert "waiting 0.0s" in line, line  # Retry-After: 0 honoured, not our own backoff
    with capsys.disabled():
        print(
            f"\n[faults] calls={client.calls} retries={len(retries)} injected={injected} "
            f"create POSTs={creates} max attempt={max(attempts) + 1}"
        )


def test_html_error_pages_come_out_as_one_line(gcs: Path, make_client: Factory) -> None:
    """A 502 HTML page is retryable: the client spends its 8 attempts, then one readable line."""
    with servers.emulator(*STEP, "--gcs-dir", str(gcs), "--fault-html-rate", "1.0") as url:
        client, rec = make_client(url)
        with pytest.raises(VertexError) as err:
            client.get_tuning_job(f"{PARENT}/tuningJobs/1")
        counts = admin(url, "requests")
    assert_one_line(err.value, 502)
    assert "Server Error" in str(err.value)
    assert client.calls == FAST.attempts == sum(counts["counts"].values()) == counts["faultsInjected"]["html"]
    assert all(ex.content_type.startswith("text/html") for ex in rec.exchanges)


def test_create_hit_by_a_fault_is_not_retried_and_the_job_is_found(
    gcs: Path, scorer_uri: str, make_client: Factory
) -> None:
    """`--create-fault after`: the job is stored, the answer is 503. One POST only; the label finds it."""
    with servers.emulator(*STEP, "--gcs-dir", str(gcs), "--create-fault", "after") as url:
        client, _ = make_client(url)
        props = checked_inputs(scorer_uri)
        body = bodies.build_tuning_job(props)
        with pytest.raises(VertexError) as err:
            client.create_tuning_job(PARENT, body)
        assert err.value.status == 503 and client.calls == 1
        counts = admin(url, "requests")["counts"]
        assert counts[f"POST /v1beta1/{PARENT}/tuningJobs"] == 1
        label = body["labels"][fields.SPEC_LABEL]
        (found,) = client.find_jobs_by_label(PARENT, fields.SPEC_LABEL, label)
        assert found["labels"][fields.SPEC_LABEL] == label
        adopted = operations.create_or_adopt(client, props)  # adopts; still no second POST
        assert adopted["name"] == found["name"]
        assert admin(url, "requests")["counts"][f"POST /v1beta1/{PARENT}/tuningJobs"] == 1
        assert [j["name"] for j in admin(url, "jobs")["jobs"]] == [found["name"]]
