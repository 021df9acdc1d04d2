"""The Vertex client on its own: hosts, the endpoint override, errors, retries and pickling.

Retry behaviour is exercised against a real local HTTP server that answers from a script, so the
client's real requests/tenacity stack runs end to end. The emulator-backed tests live in
test_client_emulator.py.
"""

from __future__ import annotations

import json
import pickle
import socket
import struct
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tunifolk import vertex, vertex_hosts
from tunifolk.emulator.responses import error_body
from tunifolk.errors import UnreachableError
from tunifolk.vertex import RetryPolicy, VertexClient, VertexError

FAST = RetryPolicy(attempts=5, max_seconds=10, initial=0.01, maximum=0.05)


@pytest.mark.parametrize(
    ("name", "host"),
    [
        ("projects/p/locations/us-central1/tuningJobs/1", "us-central1-aiplatform.googleapis.com"),
        ("projects/p/locations/europe-west4/tuningJobs/1", "europe-west4-aiplatform.googleapis.com"),
        ("projects/p/locations/us/endpoints/9", "aiplatform.us.rep.googleapis.com"),
        ("projects/p/locations/eu/endpoints/9", "aiplatform.eu.rep.googleapis.com"),
        ("projects/p/locations/global/publishers/google/models/m", "aiplatform.googleapis.com"),
        (
            "projects/1/locations/us-central1/metadataStores/default/contexts/x",
            "us-central1-aiplatform.googleapis.com",
        ),
    ],
)
def test_host_follows_the_location_in_the_name(name: str, host: str, monkeypatch) -> None:
    monkeypatch.delenv(vertex_hosts.ENDPOINT_ENV, raising=False)
    client = VertexClient()
    assert client.url(name) == f"https://{host}/v1beta1/{name}"


def test_serving_host_of_a_tuned_endpoint() -> None:
    for region in ("us", "eu"):
        host = vertex_hosts.serving_host(f"projects/p/locations/{region}/endpoints/1")
        assert host == f"aiplatform.{region}.rep.googleapis.com"


def test_bad_names_and_locations_are_refused() -> None:
    with pytest.raises(ValueError, match="not a Vertex resource name"):
        vertex_hosts.location_of("tuningJobs/1")
    with pytest.raises(ValueError, match="unknown Vertex location"):
        vertex_hosts.host_for("evil.example.com/x")


def test_override_sends_every_host_to_one_base_url(monkeypatch) -> None:
    monkeypatch.setenv(vertex_hosts.ENDPOINT_ENV, "http://127.0.0.1:9999/")
    client = VertexClient()
    assert client.url("projects/p/locations/us/endpoints/1", ":generateContent") == (
        "http://127.0.0.1:9999/v1beta1/projects/p/locations/us/endpoints/1:generateContent"
    )
    assert client.url("projects/p/locations/us-central1/tuningJobs/2").startswith(
        "http://127.0.0.1:9999/v1beta1/"
    )
    assert client._auth_headers(client.url("projects/p/locations/us/endpoints/1")) == {}


@pytest.mark.parametrize("bad", ["http://10.0.0.5:80", "ftp://127.0.0.1", "127.0.0.1:8080"])
def test_override_must_be_loopback_http_or_https(bad: str, monkeypatch) -> None:
    monkeypatch.setenv(vertex_hosts.ENDPOINT_ENV, bad)
    with pytest.raises(ValueError, match=vertex_hosts.ENDPOINT_ENV):
        VertexClient()


def test_the_client_refuses_to_be_pickled() -> None:
    with pytest.raises(TypeError, match="never pickle"):
        pickle.dumps(VertexClient(endpoint="http://127.0.0.1:1"))


def test_html_page_becomes_one_line() -> None:
    page = (
        "<!DOCTYPE html>\n<html lang=en>\n  <meta charset=utf-8>\n  <title>Error 404 (Not Found)!!1</title>\n"
        "  <style>*{margin:0;padding:0}</style>\n  <a href=//www.google.com/><span id=logo></span></a>\n"
        "  <p><b>404.</b> <ins>That&#39;s an error.</ins>\n  <p>The requested URL <code>/v1beta1/x</code> "
        "was not found on this server.  <ins>That&#39;s all we know.</ins>\n"
    )
    line = vertex.one_line(page)
    assert "\n" not in line and "<" not in line
    assert line.startswith("Error 404 (Not Found)!!1: 404. That's an error.")
    assert "/v1beta1/x was not found" in line


# --------------------------------------------------------------------------- scripted server


class Script:
    """Statuses to answer in order (then 200 {"ok": true}); records what arrived."""

    def __init__(self, steps: list[tuple[int, dict[str, str], str]]) -> None:
        self.steps = steps
        self.seen: list[tuple[str, str, float]] = []
        self.bodies: list[tuple[str, str, object]] = []
        self.lock = threading.Lock()


@pytest.fixture
def scripted() -> Iterator[tuple[str, Script]]:
    script = Script([])

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            with script.lock:
                if raw:
                    script.bodies.append((self.command, self.path, json.loads(raw)))
                script.seen.append((self.command, self.path, time.monotonic()))
                step = script.steps.pop(0) if script.steps else (200, {}, '{"ok": true}')
            status, headers, body = step
            data = body.encode()
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_DELETE = _answer

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    # shutdown() waits up to one poll interval: 0.5 s by default, for every test
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", script
    finally:
        server.shutdown()
        server.server_close()


def google_error(code: int, status: str, message: str) -> str:
    return json.dumps({"error": {"code": code, "message": message, "status": status}})


JOB = "projects/p/locations/us-central1/tuningJobs/7"


def test_transient_statuses_are_retried_until_success(scripted) -> None:
    url, script = scripted
    script.steps = [
        (503, {}, google_error(503, "UNAVAILABLE", "try later")),
        (429, {"Retry-After": "0"}, google_error(429, "RESOURCE_EXHAUSTED", "slow down")),
        (500, {}, google_error(500, "INTERNAL", "oops")),
        (502, {}, "<html><title>502 Bad Gateway</title></html>"),
        (200, {}, '{"name": "x"}'),
    ]
    notes: list[str] = []
    client = VertexClient(endpoint=url, retry=FAST, on_retry=notes.append)
    assert client.get_tuning_job(JOB) == {"name": "x"}
    assert len(script.seen) == 5 and client.calls == 5
    assert len(notes) == 4 and "503" in notes[0]


def test_retry_after_is_honoured(scripted) -> None:
    url, script = scripted
    script.steps = [(429, {"Retry-After": "0.3"}, google_error(429, "RESOURCE_EXHAUSTED", "quota"))]
    VertexClient(endpoint=url, retry=FAST).get_tuning_job(JOB)
    (_, _, first), (_, _, second) = script.seen
    assert second - first >= 0.3


def test_retries_are_bounded_in_attempts(scripted) -> None:
    url, script = scripted
    script.steps = [(503, {}, google_error(503, "UNAVAILABLE", "down"))] * 10
    with pytest.raises(VertexError) as info:
        VertexClient(endpoint=url, retry=FAST).get_tuning_job(JOB)
    assert info.value.status == 503 and len(script.seen) == FAST.attempts


def test_retries_are_bounded_in_time(scripted) -> None:
    url, script = scripted
    script.steps = [(503, {"Retry-After": "0.2"}, "{}")] * 50
    policy = RetryPolicy(attempts=50, max_seconds=0.5, initial=0.01, maximum=0.05)
    with pytest.raises(VertexError):
        VertexClient(endpoint=url, retry=policy).get_tuning_job(JOB)
    assert 2 <= len(script.seen) < 10


def test_create_is_never_retried(scripted) -> None:
    url, script = scripted
    script.steps = [(503, {}, google_error(503, "UNAVAILABLE", "maybe created"))]
    with pytest.raises(VertexError) as info:
        VertexClient(endpoint=url, retry=FAST).create_tuning_job("projects/p/locations/us-central1", {})
    assert info.value.status == 503 and len(script.seen) == 1


def test_client_errors_are_not_retried_and_carry_everything(scripted) -> None:
    url, script = scripted
    script.steps = [(400, {}, google_error(400, "INVALID_ARGUMENT", "batchSize must be positive"))]
    with pytest.raises(VertexError) as info:
        VertexClient(endpoint=url, retry=FAST).validate_reward("projects/p/locations/us-central1", {})
    err = info.value
    assert (err.status, err.status_name, err.message, err.method) == (
        400,
        "INVALID_ARGUMENT",
        "batchSize must be positive",
        "POST",
    )
    assert (
        err.path == "/v1beta1/projects/p/locations/us-central1/tuningJobs:validateReinforcementTuningReward"
    )
    assert len(script.seen) == 1
    assert str(err).startswith("POST /v1beta1/projects/p/locations/us-central1/tuningJobs:validate")


def test_dropped_connections_are_retried_then_named_on_one_line() -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        threading.Thread(target=_drop_every_connection, args=(server,), daemon=True).start()
        url = f"http://127.0.0.1:{server.getsockname()[1]}"
        client = VertexClient(endpoint=url, retry=RetryPolicy(attempts=3, initial=0.01, maximum=0.01))
        with pytest.raises(UnreachableError, match=rf"cannot reach {url} .*TUNIFOLK_VERTEX_ENDPOINT") as info:
            client.get_tuning_job(JOB)
    assert client.calls == 3 and "\n" not in str(info.value)


def test_a_refused_local_port_is_not_retried() -> None:
    """Nothing listens: the answer comes at once instead of after the retry budget."""
    client = VertexClient(endpoint="http://127.0.0.1:9", retry=RetryPolicy(attempts=5, initial=1.0))
    with pytest.raises(UnreachableError, match="connection refused"):
        client.get_tuning_job(JOB)
    assert client.calls == 1


def _drop_every_connection(server: socket.socket) -> None:
    while True:
        try:
            conn, _ = server.accept()
        except OSError:
            return
        conn.recv(65536)
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        conn.close()


def test_batch_read_sends_at_most_twenty_series_a_call(scripted) -> None:
    url, script = scripted
    client = VertexClient(endpoint=url, retry=FAST)
    names = [
        f"projects/p/locations/us-central1/tensorboards/1/experiments/e/runs/r/timeSeries/{i}"
        for i in range(45)
    ]
    client.batch_read("projects/p/locations/us-central1/tensorboards/1", names)
    counts = [path.count("timeSeries=") for _, path, _ in script.seen]
    assert counts == [20, 20, 5]


SCHEMA_BY_SUFFIX = {
    "/tuningJobs": "TuningJob",
    ":cancel": "CancelTuningJobRequest",
    ":validateReinforcementTuningReward": "ValidateReinforcementTuningRewardRequest",
    ":generateContent": "GenerateContentRequest",
    ":undeployModel": "UndeployModelRequest",
}


def test_every_body_the_client_sends_matches_the_discovery_document(scripted) -> None:
    """Bodies built by spec.py go out through each client method and are checked as they arrived."""
    from discovery import validate
    from jobs import inputs
    from tunifolk.job import bodies, checks

    url, script = scripted
    props = checks.check_inputs(inputs("https://scorer-abc.a.run.app")).inputs
    client = VertexClient(endpoint=url, retry=FAST)
    parent = "projects/p/locations/us-central1"
    client.create_tuning_job(parent, bodies.build_tuning_job(props))
    client.cancel_tuning_job(JOB)
    client.validate_reward(parent, bodies.build_validate_request(props))
    client.judge_available("p", "us-central1", "gemini-2.5-pro")
    client.generate_content(
        "projects/p/locations/us/endpoints/5", {"contents": [{"role": "user", "parts": [{"text": "x"}]}]}
    )
    client.undeploy_model("projects/p/locations/us/endpoints/5", "123")
    assert len(script.bodies) == 6
    for _, path, body in script.bodies:
        suffix = next(s for s in SCHEMA_BY_SUFFIX if path.split("?")[0].endswith(s))
        validate(SCHEMA_BY_SUFFIX[suffix], body)


def test_the_error_info_reason_decides_retry_and_fix(scripted) -> None:
    """A 429 is retried when its ErrorInfo says a rate limit (passes by itself), not when it says a used-up
    resource quota (concurrent tuning jobs); the reason, domain and metadata reach the error, and the
    fix is read from the reason, not from the message. Bodies come from the emulator's one builder."""
    url, script = scripted
    meta = {"service": "aiplatform.googleapis.com", "consumer": "projects/123", "quota_metric": "q"}
    quota = error_body(429, "Quota exceeded.", "RESOURCE_QUOTA_EXCEEDED", metadata=meta)
    rate = error_body(429, "Quota exceeded.", "RATE_LIMIT_EXCEEDED", metadata=meta)
    script.steps = [(429, {}, json.dumps(quota))] * 3
    with pytest.raises(VertexError) as info:
        VertexClient(endpoint=url, retry=FAST).get_tuning_job(JOB)
    err = info.value
    assert len(script.seen) == 1 and err.quota_exceeded and not err.permission_denied
    assert (err.status_name, err.reason, err.domain) == (
        "RESOURCE_EXHAUSTED",
        "RESOURCE_QUOTA_EXCEEDED",
        "googleapis.com",
    )
    assert err.metadata["consumer"] == "projects/123" and "`tunifolk list`" in err.fix and "q" in err.fix
    script.seen.clear()
    script.steps = [(429, {"Retry-After": "0"}, json.dumps(rate)), (200, {}, '{"name": "x"}')]
    assert VertexClient(endpoint=url, retry=FAST).get_tuning_job(JOB) == {"name": "x"}
    assert len(script.seen) == 2


def test_a_disabled_api_is_not_a_missing_permission(scripted) -> None:
    """403 SERVICE_DISABLED (ErrorInfo) is told apart from a 403 a grant would fix, by its reason."""
    url, script = scripted
    meta = {"service": "aiplatform.googleapis.com", "consumer": "projects/123"}
    body = error_body(
        403, "Vertex AI API has not been used in project 123.", "SERVICE_DISABLED", metadata=meta
    )
    script.steps = [(403, {}, json.dumps(body))]
    with pytest.raises(VertexError) as info:
        VertexClient(endpoint=url, retry=FAST).get_tuning_job(JOB)
    err = info.value
    assert err.service_disabled and not err.permission_denied
    assert str(err).endswith(err.fix) and "\n" not in str(err)  # one line that names the fix
    assert "gcloud services enable aiplatform.googleapis.com --project 123`" in err.fix
