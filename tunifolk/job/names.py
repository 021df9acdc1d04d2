"""Resource names compared as Google means them: a project is named by its ID or by its number.

Config carries the project ID (`projects/my-project/locations/…/models/555`), while Vertex answers
with the project **number** in every name it returns (`projects/123456789012/locations/…/models/555@3`).
Comparing the two as strings says "different" for the same model, and a cleanup that decides what it
owns that way deletes a continuous-tuning job's whole parent model with every earlier version. So every
comparison of resource names in the program goes through `same_resource`.

It is also the one place that says what a resource name may be (`GRAMMAR`, `name_problem`): every
name the program builds a URL from is checked against it segment by segment first, so a `#`, `?`,
`%`, `/` or `..` in a name from config or a flag can never change which resource a call reaches.

Pure: no I/O. What ties an ID to its number comes from the caller (the job's own name carries the
number of the project the config names by ID); without that, an ID and a number are taken to be the
same project, which errs towards "same resource": the safe side for a decision about what to delete.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

PROJECTS = "projects"


def local_project_number(project: str) -> str:
    """The 12-digit number the local stand-ins (the Vertex emulator, the gcp stand-in) give a project
    ID, the same in both without either asking the other. Google's numbers cannot be derived from the
    ID; these are stable per ID. A number is its own number."""
    if project.isdigit():
        return project
    return str(10**11 + int(hashlib.sha256(project.encode()).hexdigest(), 16) % (9 * 10**11))


def by_local_number(name: str) -> str:
    """`name` with its project named by `local_project_number`, as the stand-ins answer (Google takes
    either form in a request and names what it returns with the number)."""
    project = project_of(name)
    return with_project(name, local_project_number(project)) if project else name


def with_project(name: str, project: str) -> str:
    """`name` with its project segment replaced (`projects/P/rest` → `projects/project/rest`)."""
    return f"{PROJECTS}/{project}/{_rest(name)}" if project_of(name) is not None else name


def project_of(name: str) -> str | None:
    """The project segment of `projects/P/...`, or None for a name without one."""
    parts = name.strip("/").split("/")
    return parts[1] if len(parts) >= 2 and parts[0] == PROJECTS and parts[1] else None


def _rest(name: str) -> str:
    """The name past its project segment (`locations/L/models/M`), or the whole name without one."""
    parts = name.strip("/").split("/")
    return "/".join(parts[2:]) if project_of(name) is not None else "/".join(parts)


def same_project(a: str, b: str, aliases: Iterable[Iterable[str]] = ()) -> bool:
    """Whether two project segments name one project.

    Equal segments do. Segments that one alias group holds (`{"my-project", "123456789012"}`) do. An
    ID and a number that no group tells apart do too: offline, nothing says they differ, and the
    number form is how the service answers for the ID the config gave. A group that pairs either
    side with something else says they differ."""
    if a == b:
        return True
    groups = [frozenset(g) for g in aliases]
    if any(a in g and b in g for g in groups):
        return True
    if any((a in g) != (b in g) for g in groups if a in g or b in g):
        return False
    return a.isdigit() != b.isdigit()


def same_resource(a: str, b: str, aliases: Iterable[Iterable[str]] = ()) -> bool:
    """Whether two resource names name one resource, whichever form (ID or number) each project
    segment takes. Versions (`@N`) are part of the name: compare bases with `base` first."""
    pa, pb = project_of(a), project_of(b)
    if _rest(a) != _rest(b):
        return False
    if pa is None or pb is None:
        return pa == pb
    return same_project(pa, pb, aliases)


def base(name: str) -> str:
    """A model name without its version: `…/models/M@3` → `…/models/M`."""
    return name.partition("@")[0]


def version(name: str) -> str:
    """A model name's version (`…/models/M@3` → `3`), or "" without one."""
    return name.partition("@")[2]


# --------------------------------------------------------------------------- what a name may be
#
# Every resource name the program puts in a URL is checked here first, segment by segment: a name is
# a chain of `collection/id` pairs, each collection allowed only under its parent and each id held to
# its collection's pattern. So `models/M#@1` (which `#` would cut to `DELETE …/models/M`, every
# version), `?`, `%`, `/`, empty segments and `.`/`..` never reach a path. One table, here.

_PROJECT = r"[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?|[0-9]{1,20}"
"""A project ID (lowercase letters, digits, hyphens; starts with a letter) or a project number.
Domain-scoped IDs (`example.com:p`) are not accepted: their `:` would read as a custom verb."""
_LOCATION = r"[a-z]+(?:-[a-z]+[0-9]+)?"
"""`us-central1`, `europe-west4`, the multi-regions `us`/`eu`, `global`."""
_ID = r"[A-Za-z0-9](?:[A-Za-z0-9_-]{0,126}[A-Za-z0-9])?"
"""A resource ID: numbers, or user-chosen IDs of letters, digits, `-` and `_`."""
_NUMBER = r"[0-9]{1,20}"
_PUBLISHER_MODEL = r"[a-z0-9](?:[a-z0-9-]|\.(?!\.)){0,126}[a-z0-9]|[a-z0-9]"
"""A publisher model ID such as `gemini-2.5-flash`: dots inside, never two in a row."""
_VERSION = rf"@{_ID}"
"""A model version: `@3`, or an alias like `@default`."""

#: What may follow what: a state (the kind of resource named so far; "" before anything) maps each
#: collection allowed under it to the state it leads to and the pattern of its ids.
GRAMMAR: dict[str, dict[str, tuple[str, str]]] = {
    "": {"projects": ("project", _PROJECT)},
    "project": {"locations": ("location", _LOCATION)},
    "location": {
        "tuningJobs": ("tuning job", _NUMBER),
        "models": ("model", _ID),
        "endpoints": ("endpoint", _ID),
        "operations": ("operation", _NUMBER),
        "tensorboards": ("tensorboard", _NUMBER),
        "metadataStores": ("metadata store", _ID),
        "publishers": ("publisher", "google"),
    },
    "publisher": {"models": ("publisher model", _PUBLISHER_MODEL)},
    "tuning job": {"operations": ("operation", _NUMBER)},
    "model": {"operations": ("operation", _NUMBER)},
    "endpoint": {"operations": ("operation", _NUMBER)},
    "tensorboard": {"experiments": ("experiment", _ID), "operations": ("operation", _NUMBER)},
    "experiment": {"runs": ("run", _ID)},
    "run": {"timeSeries": ("time series", _ID)},
    "metadata store": {"contexts": ("context", _ID)},
}
#: kinds whose id may carry a version when it ends the name (`…/models/M@3`).
VERSIONED = frozenset({"model"})
SHAPE = "projects/P/locations/L/<collection>/ID"


def kind_of(name: str) -> str | None:
    """The kind of resource a valid name names (`model`, `endpoint`, `tuning job`, `location`, ...),
    or None when `name` is not one (see `name_problem` for why)."""
    return None if name_problem(name) else _walk(name)[0]


def name_problem(name: object, kind: str | None = None) -> str | None:
    """Why `name` is not a Vertex resource name (of `kind`, when given), or None when it is one.

    The reason names the first offending segment, so a one-line error can say what to fix."""
    if not isinstance(name, str):
        return f"expected a resource name like {SHAPE}, got {name!r}"
    found, problem = _walk(name)
    if problem:
        return problem
    if kind is not None and found != kind:
        return f"{name!r} is not a {kind} name (it names a resource of kind: {found})"
    return None


def _walk(name: str) -> tuple[str, str | None]:
    """The kind `name` leads to and the first problem on the way (None when there is none)."""
    parts = name.split("/")
    if len(parts) < 2 or len(parts) % 2:
        return "", f"{name!r} is not a Vertex resource name: expected {SHAPE} (collection/id pairs)"
    state = ""
    for i in range(0, len(parts), 2):
        collection, ident = parts[i], parts[i + 1]
        allowed = GRAMMAR.get(state, {})
        if collection not in allowed:
            where = f"under a {state}" if state else "first"
            expected = ", ".join(allowed) or "nothing"
            return state, f"{name!r}: {collection!r} cannot come {where}; expected {expected}"
        state, pattern = allowed[collection]
        if i + 2 == len(parts) and state in VERSIONED:
            pattern = rf"(?:{pattern})(?:{_VERSION})?"
        if not re.fullmatch(pattern, ident, flags=re.ASCII):
            return state, f"{name!r}: {ident!r} is not a valid {state} id"
    return state, None
