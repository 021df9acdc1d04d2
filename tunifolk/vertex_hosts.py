"""Where a Vertex call goes: resource names, the host each location is served from, the
`TUNIFOLK_VERTEX_ENDPOINT` override, and the console link of a tuning job.

Pure (no HTTP), so the CLI, the provider and the client all resolve a name the same way, and a
name that is not a Vertex resource fails here with one line before any request is built:

* regional control planes are `{region}-aiplatform.googleapis.com`; tuned endpoints live in the
  multi-regions `us`/`eu`, served from `aiplatform.{us,eu}.rep.googleapis.com`;
* `TUNIFOLK_VERTEX_ENDPOINT` sends every call to one base URL (the emulator), path unchanged; plain
  `http://` is allowed on loopback only, where no credentials are sent.
"""

from __future__ import annotations

import ipaddress
import os
import re
from urllib.parse import urlsplit

from tunifolk.errors import ConfigError, ResourceNameError

ENDPOINT_ENV = "TUNIFOLK_VERTEX_ENDPOINT"
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
    """The `TUNIFOLK_VERTEX_ENDPOINT` base URL, checked, or None when unset."""
    raw = os.environ.get(ENDPOINT_ENV, "").strip().rstrip("/")
    if not raw:
        return None
    parts = urlsplit(raw)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{ENDPOINT_ENV}={raw!r}: expected a base URL like http://127.0.0.1:8090")
    if parts.scheme == "http" and not is_loopback(parts.hostname):
        raise ConfigError(
            f"{ENDPOINT_ENV}={raw!r}: plain http is allowed only on loopback (127.0.0.1, localhost, ::1); "
            "use https for any other host"
        )
    return raw


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
    if hostname == "localhost":
        return True
    try:
        return ipaddress.ip_address(hostname).is_loopback
    except ValueError:
        return False
