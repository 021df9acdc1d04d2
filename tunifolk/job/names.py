"""Resource names compared as Google means them: a project is named by its ID or by its number.

Config carries the project ID (`projects/my-project/locations/…/models/555`), while Vertex answers
with the project **number** in every name it returns (`projects/123456789012/locations/…/models/555@3`).
Comparing the two as strings says "different" for the same model, and a cleanup that decides what it
owns that way deletes a continuous-tuning job's whole parent model with every earlier version. So every
comparison of resource names in the program goes through `same_resource`.

Pure: no I/O. What ties an ID to its number comes from the caller (the job's own name carries the
number of the project the config names by ID); without that, an ID and a number are taken to be the
same project, which errs towards "same resource": the safe side for a decision about what to delete.
"""

from __future__ import annotations

import hashlib
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
