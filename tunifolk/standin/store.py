"""The stand-in's records on disk: one JSON file per resource, written atomically.

The engine runs one plugin process per command and calls Create on independent resources in
parallel, and `tunifolk local start|stop` reads the same records from another process, so each
record is its own file (written through a temporary file and a rename) and read-modify-write steps
take an exclusive `flock` on the directory's lock file.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Record:
    """One resource as Google would hold it: its type token, id, inputs and outputs."""

    token: str
    id: str
    inputs: dict[str, Any]
    outputs: dict[str, Any]


def _slug(token: str) -> str:
    """`gcp:storage/bucket:Bucket` → `storage.bucket`: a folder name per resource type."""
    return token.split(":")[1].replace("/", ".")


class Store:
    """Records under `root/resources/<type>/<sha1 of id>.json`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.resources = root / "resources"

    def _path(self, token: str, id_: str) -> Path:
        return self.resources / _slug(token) / (hashlib.sha1(id_.encode()).hexdigest() + ".json")

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Exclusive access for a check-then-write step (e.g. "create unless it exists")."""
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / ".lock", "a+") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def get(self, token: str, id_: str) -> Record | None:
        path = self._path(token, id_)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        return Record(data["token"], data["id"], data["inputs"], data["outputs"])

    def put(self, record: Record) -> None:
        path = self._path(record.token, record.id)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        body = {"token": record.token, "id": record.id, "inputs": record.inputs, "outputs": record.outputs}
        tmp.write_text(json.dumps(body, indent=1, sort_keys=True), encoding="utf-8")
        tmp.replace(path)

    def delete(self, token: str, id_: str) -> bool:
        try:
            self._path(token, id_).unlink()
        except FileNotFoundError:
            return False
        return True

    def all(self, token: str | None = None) -> list[Record]:
        """Every record (of one type, if given), in a stable order."""
        folders = [self.resources / _slug(token)] if token else sorted(self.resources.glob("*"))
        out = []
        for folder in folders:
            for path in sorted(folder.glob("*.json")):
                data = json.loads(path.read_text(encoding="utf-8"))
                out.append(Record(data["token"], data["id"], data["inputs"], data["outputs"]))
        return out
