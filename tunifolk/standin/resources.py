"""The stand-in's registry: every resource type it models, by the engine's type token, and the
invokes it answers. The server routes each call through these two tables; a token not listed is
refused with the list of what is modelled.

The base model is `kind.py`; the types are grouped by Google product family (`storage.py`,
`projects.py`, `run_service.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tunifolk.standin.kind import Context, Kind
from tunifolk.standin.ledger_kinds import Dataset, DatasetIamMember, ProjectSink
from tunifolk.standin.projects import (
    Account,
    ProjectIAMBinding,
    ProjectIAMMember,
    ProjectService,
    ServiceIdentity,
    get_iam_policy,
    get_project,
)
from tunifolk.standin.registry import Repository, RepositoryIamMember
from tunifolk.standin.run_service import CloudRunService, ServiceIamMember, ServiceIamPolicy
from tunifolk.standin.storage import (
    Bucket,
    BucketAccessControl,
    BucketIAMBinding,
    BucketIAMMember,
    BucketObject,
    DefaultObjectAccessControl,
    ObjectAccessControl,
)

KINDS: dict[str, Kind] = {
    k.token: k
    for k in (
        Bucket(),
        BucketObject(),
        BucketIAMMember(),
        BucketIAMBinding(),
        BucketAccessControl(),
        DefaultObjectAccessControl(),
        ObjectAccessControl(),
        ProjectIAMMember(),
        ProjectIAMBinding(),
        Account(),
        CloudRunService(),
        ServiceIamMember(),
        ServiceIamPolicy(),
        ProjectService(),
        ServiceIdentity(),
        Dataset(),
        ProjectSink(),
        DatasetIamMember(),
        Repository(),
        RepositoryIamMember(),
    )
}

INVOKES: dict[str, Callable[[Context, dict[str, Any]], dict[str, Any]]] = {
    "gcp:organizations/getProject:getProject": get_project,
    "gcp:projects/getIamPolicy:getIamPolicy": get_iam_policy,
}
