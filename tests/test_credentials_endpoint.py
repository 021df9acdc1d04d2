"""The user's Google token goes to Google only: the endpoint override is loopback http or refused, a
non-Google URL never carries Authorization, and a token refresh that cannot reach its endpoint is one
line, not a traceback.

Everything runs against real local servers: a recording HTTP server that also plays the OAuth token
endpoint (so the credentials really are valid and a leak would really carry a token), and a TLS
server with a self-signed certificate the client is told to trust (so an https override would really
connect). The CLI runs as a process (`python -m tunifolk`), as a user runs it.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import json
import os
import ssl
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID

from tunifolk import vertex_hosts
from tunifolk.errors import ConfigError
from tunifolk.processes import free_port
from tunifolk.vertex import ENDPOINT_ENV, VertexClient

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "test-only-access-token-that-must-stay-home"
LIST_ARGS = ("list", "--project", "p", "--location", "us-central1")


@dataclass
class Recorder:
    """What a local server received: (method, path, headers) per request."""

    url: str
    seen: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)

    def authorizations(self) -> list[str]:
        return [h["authorization"] for _, _, h in self.seen if "authorization" in h]


def _serve(tls: ssl.SSLContext | None = None) -> Iterator[Recorder]:
    """A server on 127.0.0.1 that records every request; POST /token answers as an OAuth token
    endpoint, anything else with an empty job list."""
    recorder = Recorder("")

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if length:
                self.rfile.read(length)
            recorder.seen.append((self.command, self.path, {k.lower(): v for k, v in self.headers.items()}))
            body = (
                {"access_token": TOKEN, "expires_in": 3600, "token_type": "Bearer"}
                if self.path.startswith("/token")
                else {"tuningJobs": []}
            )
            data = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_DELETE = _answer

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    recorder.url = f"{'https' if tls else 'http'}://127.0.0.1:{server.server_port}"
    # shutdown() waits up to one poll interval: 0.5 s by default, for every test
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    try:
        yield recorder
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def recorder() -> Iterator[Recorder]:
    yield from _serve()


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, Path]:
    """A self-signed certificate for localhost and 127.0.0.1 (cert, key)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return cert_path, key_path


@pytest.fixture
def tls_recorder(certificate: tuple[Path, Path]) -> Iterator[Recorder]:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*certificate)
    yield from _serve(context)


def service_account(tmp_path: Path, token_uri: str) -> Path:
    """A service-account key file whose token endpoint is `token_uri`: ADC that works offline."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    path = tmp_path / "adc.json"
    path.write_text(
        json.dumps(
            {
                "type": "service_account",
                "project_id": "p",
                "private_key_id": "k1",
                "private_key": pem,
                "client_email": "tester@p.iam.gserviceaccount.com",
                "client_id": "1",
                "token_uri": token_uri,
            }
        )
    )
    return path


def tunifolk(*argv: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The real CLI with only the given Google-related settings: no gcloud config, no metadata server,
    and any https that is not ours sent to a closed port, so nothing could reach Google."""
    base = {k: v for k, v in os.environ.items() if k != ENDPOINT_ENV and not k.startswith("GOOGLE_")}
    isolated = {
        "CLOUDSDK_CONFIG": env.get("HOME", "/nonexistent") + "/gcloud",
        "NO_GCE_CHECK": "True",
        "HTTPS_PROXY": "http://127.0.0.1:9",
        "https_proxy": "http://127.0.0.1:9",
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
    }
    return subprocess.run(
        [sys.executable, "-m", "tunifolk", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**base, **isolated, **env},
    )


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    return lines[0]


# --------------------------------------------------------------------------- the override


def test_an_https_override_is_refused_before_any_token_is_fetched_or_sent(
    tls_recorder: Recorder, recorder: Recorder, certificate: tuple[Path, Path], tmp_path: Path
) -> None:
    """The audit's reproduction: a TLS server the client trusts, named by the override, with working
    ADC. It must receive nothing, and no token may even be fetched."""
    adc = service_account(tmp_path, f"{recorder.url}/token")
    endpoint = tls_recorder.url.replace("127.0.0.1", "localhost")
    env = {
        "HOME": str(tmp_path),
        ENDPOINT_ENV: endpoint,
        "GOOGLE_APPLICATION_CREDENTIALS": str(adc),
        "REQUESTS_CA_BUNDLE": str(certificate[0]),  # trusted: the old client connected and sent its token
    }
    done = tunifolk(*LIST_ARGS, env=env)
    assert done.returncode == 2, (done.stdout, done.stderr, tls_recorder.seen)
    line = one_line(done)
    assert ENDPOINT_ENV in line and "http://127.0.0.1" in line
    assert tls_recorder.seen == []
    assert recorder.seen == []  # not even the token endpoint was asked


REFUSED = [
    "https://127.0.0.1:8443",
    "https://us-central1-aiplatform.googleapis.com",
    "http://vertex.internal.example:8090",
    "http://127.0.0.1.nip.io:8090",
    "http://127.0.0.1@evil.example:8090",
    "http://127.0.0.1:8090?x=1",
    "http://127.0.0.1:99999",
    "file:///etc/passwd",
]
"""Overrides the client refuses: each in process below; through the CLI process (0.7 s each), two in
`make test-fast` and every one in `make test` (the CLI's refusal is one path whatever the value)."""
THROUGH_THE_CLI = {"https://us-central1-aiplatform.googleapis.com", "http://127.0.0.1@evil.example:8090"}


@pytest.mark.parametrize("endpoint", REFUSED)
def test_every_override_but_loopback_http_is_refused_by_the_client(endpoint: str, monkeypatch) -> None:
    monkeypatch.setenv(ENDPOINT_ENV, endpoint)
    with pytest.raises(ConfigError, match=ENDPOINT_ENV) as refused:
        VertexClient()
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize(
    "endpoint", [pytest.param(e, marks=() if e in THROUGH_THE_CLI else pytest.mark.slow) for e in REFUSED]
)
def test_every_override_but_loopback_http_is_refused_with_one_line(
    endpoint: str, recorder: Recorder, tmp_path: Path
) -> None:
    adc = service_account(tmp_path, f"{recorder.url}/token")
    env = {"HOME": str(tmp_path), ENDPOINT_ENV: endpoint, "GOOGLE_APPLICATION_CREDENTIALS": str(adc)}
    done = tunifolk(*LIST_ARGS, env=env)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert ENDPOINT_ENV in one_line(done)
    assert recorder.seen == []


def test_loopback_http_gets_the_call_and_never_an_authorization_header(
    recorder: Recorder, tmp_path: Path
) -> None:
    """Valid ADC is present (its token endpoint answers), yet the emulator-side server sees no
    Authorization and the token endpoint is never asked."""
    adc = service_account(tmp_path, f"{recorder.url}/token")
    env = {"HOME": str(tmp_path), ENDPOINT_ENV: recorder.url, "GOOGLE_APPLICATION_CREDENTIALS": str(adc)}
    done = tunifolk(*LIST_ARGS, env=env)
    assert done.returncode == 0, done.stderr
    paths = [(method, path.partition("?")[0]) for method, path, _ in recorder.seen]
    assert paths == [("GET", "/v1beta1/projects/p/locations/us-central1/tuningJobs")]
    assert recorder.authorizations() == []


@pytest.mark.parametrize(
    ("url", "carries"),
    [
        ("https://us-central1-aiplatform.googleapis.com/v1beta1/x", True),
        ("https://aiplatform.us.rep.googleapis.com/v1beta1/x", True),
        ("https://aiplatform.googleapis.com:443/v1beta1/x", True),
        ("http://us-central1-aiplatform.googleapis.com/v1beta1/x", False),
        ("https://aiplatform.googleapis.com:8443/v1beta1/x", False),
        ("https://googleapis.com.evil.example/v1beta1/x", False),
        ("https://evilgoogleapis.com/v1beta1/x", False),
        ("https://user@aiplatform.googleapis.com/v1beta1/x", False),
        ("https://127.0.0.1:8443/v1beta1/x", False),
        ("http://127.0.0.1:8090/v1beta1/x", False),
    ],
)
def test_only_googles_https_hosts_carry_credentials(url: str, carries: bool) -> None:
    assert vertex_hosts.carries_credentials(url) is carries


def test_local_env_refuses_a_planted_emulator_url(tmp_path: Path) -> None:
    """`local env` turns build/local/emulator.url into the override: a file naming another host is
    refused (exit 2, one line), and nothing is exported for `eval` to run."""
    local = tmp_path / "local"
    local.mkdir()
    (local / "emulator.url").write_text("https://attacker.example:443\n")
    done = tunifolk("local", "env", env={"HOME": str(tmp_path), "TUNIFOLK_LOCAL_DIR": str(local)})
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "emulator.url" in one_line(done)
    assert "attacker.example" not in done.stdout


# --------------------------------------------------------------------------- token refresh


def test_a_token_endpoint_that_cannot_be_reached_is_one_line(tmp_path: Path) -> None:
    """ADC whose token endpoint is a closed local port, and no override: the refresh fails before
    any call to Google, and the user sees one line naming it (no traceback)."""
    adc = service_account(tmp_path, f"http://127.0.0.1:{free_port()}/token")
    done = tunifolk(*LIST_ARGS, env={"HOME": str(tmp_path), "GOOGLE_APPLICATION_CREDENTIALS": str(adc)})
    assert done.returncode in (1, 2), (done.stdout, done.stderr)
    line = one_line(done)
    assert "refreshing credentials failed" in line and "127.0.0.1" in line
