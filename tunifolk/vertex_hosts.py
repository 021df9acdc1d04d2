"""Where a Vertex call goes: resource names, the host each location is served from, the
`TUNIFOLK_VERTEX_ENDPOINT` override, and the console link of a tuning job.

Pure (no HTTP), so the CLI, the provider and the client all resolve a name the same way, and a
name that is not a Vertex resource fails here with one line before any request is built:

* regional control planes are `{region}-aiplatform.googleapis.com`; tuned endpoints live in the
  multi-regions `us`/`eu`, served from `aiplatform.{us,eu}.rep.googleapis.com`;
* `TUNIFOLK_VERTEX_ENDPOINT` sends every call to one base URL (the emulator), path unchanged. It must
  be plain `http://` on loopback (127.0.0.1, ::1, localhost): anything else is refused with one line
  (exit 2), because the override exists for the local emulator and nothing else;
* credentials go to Google only: a bearer token is attached to `https://*.googleapis.com` and to no
  other URL (`carries_credentials`), whatever the override says, so a mistyped or planted endpoint
  can never receive the user's cloud-platform token;
* every resource name is checked against `tunifolk.job.names` (segment by segment) before a URL is
  built from it, and each segment is quoted (`url_path`).
"""

from __future__ import annotations

import ipaddress
import os
import re
from urllib.parse import quote, urlsplit

from tunifolk.errors import ConfigError, ResourceNameError
from tunifolk.job.names import name_problem

ENDPOINT_ENV = "TUNIFOLK_VERTEX_ENDPOINT"
GOOGLE_API_DOMAIN = "googleapis.com"
"""The only domain a bearer token is ever sent to (over https)."""
MULTI_REGIONS = frozenset({"us", "eu"})
_LOCATION_RE = re.compile(r"(?:^|/)locations/([^/:]+)")


def location_of(name: str) -> str:
    """The location segment of a resource name (`projects/p/locations/L/...` → `L`)."""
    match = _LOCATION_RE.search(name)
    if not match:
        raise ResourceNameError(
            f"{name!r} is not a Vertex resource name: expected projects/P/locations/L/..."
        )
    return match.group(1)


def host_for(location: str) -> str:
    """The Google host serving a location: multi-region `rep` hosts for us/eu, regional otherwise."""
    if location in MULTI_REGIONS:
        return f"aiplatform.{location}.rep.googleapis.com"
    if location == "global":
        return "aiplatform.googleapis.com"
    if not re.fullmatch(r"[a-z]+-[a-z]+\d+", location):
        raise ResourceNameError(
            f"unknown Vertex location {location!r}: expected a region like us-central1, or us/eu"
        )
    return f"{location}-aiplatform.googleapis.com"


def serving_host(endpoint_name: str) -> str:
    """The host that serves a (tuned) endpoint, e.g. `aiplatform.us.rep.googleapis.com`."""
    return host_for(location_of(endpoint_name))


def endpoint_override() -> str | None:
    """The `TUNIFOLK_VERTEX_ENDPOINT` base URL, checked (`checked_endpoint`), or None when unset."""
    raw = os.environ.get(ENDPOINT_ENV, "").strip()
    return checked_endpoint(raw, ENDPOINT_ENV) if raw else None


def checked_endpoint(raw: str, source: str = ENDPOINT_ENV) -> str:
    """A base URL for the local emulator, without its trailing slash, or a ConfigError naming
    `source` and the fix.

    Only `http://` to a loopback address passes: the override is for the emulator on this machine,
    and anything else (an https host above all, which once received the user's ADC token) is refused
    before a request is built. No user info, query or fragment either: they would change the URL every
    path is appended to."""
    url = raw.strip().rstrip("/")
    fix = f"set {source} to the local emulator's URL, e.g. http://127.0.0.1:8090, or unset it to call Google"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - a malformed port raises here, not at the first request
    except ValueError:
        raise ConfigError(f"{source}={raw!r} is not a URL: {fix}") from None
    if parts.scheme != "http" or not parts.hostname or not is_loopback(parts.hostname):
        raise ConfigError(
            f"{source}={raw!r}: only plain http to this machine (127.0.0.1, ::1, localhost) is allowed, "
            f"no credentials are sent there: {fix}"
        )
    if "@" in parts.netloc or "?" in url or "#" in url:
        raise ConfigError(f"{source}={raw!r} must be a bare base URL (no user, query or fragment): {fix}")
    return url


def carries_credentials(url: str) -> bool:
    """Whether a request to `url` may carry the user's Google token: https to a googleapis.com host
    on the default port, nothing else (not the emulator, not a look-alike such as googleapis.com.evil)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return False
    host = (parts.hostname or "").lower()
    return (
        parts.scheme == "https"
        and port in (None, 443)
        and parts.username is None
        and (host == GOOGLE_API_DOMAIN or host.endswith("." + GOOGLE_API_DOMAIN))
    )


def checked_name(name: str, kind: str | None = None) -> str:
    """`name` if it is a valid Vertex resource name (of `kind`, when given), else ResourceNameError."""
    problem = name_problem(name, kind)
    if problem:
        raise ResourceNameError(problem)
    return name


def url_path(name: str) -> str:
    """A checked resource name as a URL path, each segment quoted (a no-op for valid names, kept so
    that no name can ever be read as more than its own segments)."""
    return "/".join(quote(part, safe="@") for part in checked_name(name).split("/"))


def console_url(job_name: str) -> str:
    """The Cloud console page of a tuning job `projects/{p}/locations/{l}/tuningJobs/{id}`."""
    parts = job_name.strip("/").split("/")
    fields = dict(zip(parts[0::2], parts[1::2], strict=False))
    project, location, job = (
        fields.get("projects", ""),
        fields.get("locations", ""),
        fields.get("tuningJobs", ""),
    )
    return (
        "https://console.cloud.google.com/vertex-ai/generative/language/locations/"
        f"{location}/tuning/tuningJob/{job}?project={project}"
    )


def is_loopback(hostname: str) -> bool:
    """127.0.0.0/8, ::1 or `localhost`: the addresses the endpoint override may name."""
    if hostname == "localhost":
        return True
    try:
        return ipaddress.ip_address(hostname).is_loopback
    except ValueError:
        return False
