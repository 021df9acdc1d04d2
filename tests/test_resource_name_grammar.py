"""What a resource name may be (tunifolk.job.names.GRAMMAR), held by properties, and where it is
enforced: the client refuses a bad name before sending (a real local server records nothing), and a
bad `tunifolk:preTunedModel.tunedModelName` fails the provider's check, the one preview runs.

`models/M#@1` is the audit's case: it passed the version guard, and `#` cut the URL to
`DELETE …/models/M`, which deletes every version of the model.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from hypothesis import given
from hypothesis import strategies as st

from providers.tuning_job import RlftTuningJobProvider
from tunifolk.errors import ResourceNameError
from tunifolk.job import names
from tunifolk.vertex import RetryPolicy, VertexClient

LOCATION = "projects/p/locations/us-central1"

# --------------------------------------------------------------------------- generated names

_lower = st.sampled_from("abcdefghijklmnopqrstuvwxyz")
_alnum = st.sampled_from("abcdefghijklmnopqrstuvwxyz0123456789")
project = st.one_of(
    st.from_regex(r"[a-z](?:[a-z0-9-]{0,20}[a-z0-9])?", fullmatch=True),
    st.integers(1, 10**12).map(str),
)
location = st.sampled_from(["us-central1", "europe-west4", "asia-northeast1", "us", "eu", "global"])
ident = st.from_regex(r"[A-Za-z0-9](?:[A-Za-z0-9_-]{0,20}[A-Za-z0-9])?", fullmatch=True)
number = st.integers(0, 10**19).map(str)
publisher_model = st.from_regex(r"[a-z0-9](?:[a-z0-9-]{0,8}\.?[a-z0-9-]{0,8})?[a-z0-9]", fullmatch=True)


@st.composite
def valid_names(draw: st.DrawFn) -> str:
    """A name from every branch of the grammar."""
    base = f"projects/{draw(project)}/locations/{draw(location)}"
    tail = draw(
        st.sampled_from(
            ["", "job", "model", "version", "endpoint", "op", "publisher", "series", "context", "nested-op"]
        )
    )
    if tail == "job":
        return f"{base}/tuningJobs/{draw(number)}"
    if tail == "model":
        return f"{base}/models/{draw(ident)}"
    if tail == "version":
        return f"{base}/models/{draw(ident)}@{draw(st.one_of(number, ident))}"
    if tail == "endpoint":
        return f"{base}/endpoints/{draw(ident)}"
    if tail == "op":
        return f"{base}/operations/{draw(number)}"
    if tail == "nested-op":
        kind = draw(st.sampled_from(["tuningJobs", "models", "endpoints"]))
        return f"{base}/{kind}/{draw(number)}/operations/{draw(number)}"
    if tail == "publisher":
        return f"{base}/publishers/google/models/{draw(publisher_model)}"
    if tail == "series":
        run = f"{base}/tensorboards/{draw(number)}/experiments/{draw(ident)}/runs/{draw(ident)}"
        return f"{run}/timeSeries/{draw(ident)}"
    if tail == "context":
        return f"{base}/metadataStores/default/contexts/{draw(ident)}"
    return base


@given(valid_names())
def test_generated_valid_names_always_validate(name: str) -> None:
    assert names.name_problem(name) is None, name


BAD = st.sampled_from(["#", "?", "%", "/", "..", "%2F", "#@1", " ", "\n", ":", "\\", "@"])


@given(valid_names(), BAD, st.data())
def test_names_with_url_syntax_in_a_segment_never_validate(name: str, bad: str, data: st.DataObject) -> None:
    """Any of `# ? % / ..` (and friends) put into an id, or an id replaced by `..`, is refused."""
    parts = name.split("/")
    i = data.draw(st.sampled_from(range(1, len(parts), 2)))
    if bad == "@" and parts[i - 1] == "models" and i == len(parts) - 1 and "@" not in parts[i]:
        bad = "@@"  # one @ ends a model name legitimately (a version); two never do
    where = data.draw(st.integers(0, len(parts[i])))
    for segment in (parts[i][:where] + bad + parts[i][where:], ".."):
        broken = "/".join([*parts[:i], segment, *parts[i + 1 :]])
        assert names.name_problem(broken) is not None, broken


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        (f"{LOCATION}/models/M#@1", "model"),
        (f"{LOCATION}/models/../endpoints/1", None),
        (f"{LOCATION}/models/M/", None),
        (f"{LOCATION}//models/M", None),
        (f"{LOCATION}/tuningJobs/7?alt=media", None),
        (f"{LOCATION}/tuningJobs/abc", None),
        (f"{LOCATION}/endpoints/1", "model"),
        ("projects/p/locations/us-central1/publishers/evil/models/m", None),
        ("projects/P/locations/us-central1", None),
        ("locations/us-central1/models/1", None),
    ],
)
def test_bad_names_say_why(name: str, kind: str | None) -> None:
    problem = names.name_problem(name, kind)
    assert problem and "\n" not in problem and repr(name) in problem


# --------------------------------------------------------------------------- the client


class Seen(list[tuple[str, str]]):
    pass


@pytest.fixture
def server() -> Iterator[tuple[str, Seen]]:
    """A real local server that records every request and answers an empty object."""
    seen = Seen()

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            seen.append((self.command, self.path))
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        do_GET = do_POST = do_DELETE = _answer

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    # shutdown() waits up to one poll interval: 0.5 s by default, for every test
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_port}", seen
    finally:
        httpd.shutdown()
        httpd.server_close()


FAST = RetryPolicy(attempts=1)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        ("delete_model_version", f"{LOCATION}/models/M#@1"),
        ("delete_model", f"{LOCATION}/models/M#x"),
        ("delete_model", f"{LOCATION}/models/M?force=true"),
        ("delete_endpoint", f"{LOCATION}/endpoints/../models/9"),
        ("get_tuning_job", f"{LOCATION}/tuningJobs/7%2F..%2F8"),
    ],
)
def test_the_client_refuses_a_bad_name_before_sending(server: tuple[str, Seen], call: str, name: str) -> None:
    url, seen = server
    with VertexClient(endpoint=url, retry=FAST) as client, pytest.raises(ResourceNameError):
        getattr(client, call)(name)
    assert seen == []


def test_a_good_version_is_deleted_by_its_own_path(server: tuple[str, Seen]) -> None:
    url, seen = server
    with VertexClient(endpoint=url, retry=FAST) as client:
        client.delete_model_version(f"{LOCATION}/models/M@1")
    assert seen == [("DELETE", f"/v1beta1/{LOCATION}/models/M@1:deleteVersion")]


# --------------------------------------------------------------------------- preview


def test_a_bad_pre_tuned_model_fails_the_providers_check_naming_the_config_key() -> None:
    """The provider's check is what `pulumi preview` runs on the job's inputs."""
    inputs = {
        "project": "p",
        "location": "us-central1",
        "pre_tuned_model": {"tuned_model_name": f"{LOCATION}/models/M#@1", "checkpoint_id": "2"},
    }
    result = RlftTuningJobProvider().check({}, inputs)
    reasons = [f.reason for f in result.failures]
    (reason,) = [r for r in reasons if "tuned_model_name" in r]
    assert "tunifolk:preTunedModel.tunedModelName" in reason and "'M#@1'" in reason
