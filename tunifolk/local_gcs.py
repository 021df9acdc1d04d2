"""Cloud Storage as both local stand-ins keep it: a folder per bucket, a file per object.

The gcp stand-in writes `gs://BUCKET/NAME` to `GCS_DIR/BUCKET/NAME` (a resource's object, or the Cloud
Build stand-in's upload), `tunifolk demo` and the tests stage datasets there, and the Vertex emulator
reads them, all through this module's layout, so all judge names by the same rules: what Google refuses
(https://cloud.google.com/storage/docs/objects#naming, bucket names:
https://cloud.google.com/storage/docs/buckets#naming), and what a file path cannot hold without
leaving its bucket's folder (an empty, `.` or `..` segment, a backslash, a NUL). Pure but for
resolving paths.
"""

from __future__ import annotations

import re
from pathlib import Path

BUCKET_RE = re.compile(r"^[a-z0-9][a-z0-9._-]{1,61}[a-z0-9]$")
ACME_PREFIX = ".well-known/acme-challenge/"


def object_name_problem(name: str) -> str | None:
    """Why GCS (first) or the stand-ins' file layout (then) refuses an object name, or None."""
    try:
        size = len(name.encode("utf-8"))
    except UnicodeEncodeError:
        return f"{name!r} is not a valid object name: it is not valid UTF-8"
    if name in (".", "..") or not 1 <= size <= 1024 or "\n" in name or "\r" in name:
        return f"{name!r} is not a valid object name (1-1024 bytes of UTF-8, no CR/LF, not . or ..)"
    if name.startswith(ACME_PREFIX):
        return f"object names may not start with {ACME_PREFIX}"
    segments = name.split("/")
    if "\0" in name or "\\" in name or any(seg in ("", ".", "..") for seg in segments):
        return (
            f"{name!r}: the stand-in stores objects as files, so it refuses names with an empty, '.' or "
            "'..' segment, a leading or doubled '/', a backslash or a NUL: name the object without them"
        )
    return None


def bucket_folder(gcs: Path, bucket: str) -> Path:
    """The folder that plays `gs://bucket`: it exists while the bucket does."""
    return gcs / bucket


def object_file(gcs: Path, bucket: str, name: str) -> Path | None:
    """The file that holds `gs://bucket/name`, or None when the bucket or object name is not one GCS
    takes or the file would lie outside the bucket's folder."""
    if not BUCKET_RE.match(bucket) or ".." in bucket or object_name_problem(name):
        return None
    folder = bucket_folder(gcs, bucket).resolve()
    path = (folder / name).resolve()
    return path if path.is_relative_to(folder) and path != folder else None


def write_object(gcs: Path, bucket: str, name: str, data: bytes) -> Path:
    """Write `gs://bucket/name`, whole or not at all (a file beside it, then a rename), since the
    emulator may read it meanwhile, as GCS never shows half an object; its file. A ValueError when
    `object_file` refuses the name (the stand-ins check first, to answer in Google's words)."""
    path = object_file(gcs, bucket, name)
    if path is None:
        raise ValueError(object_name_problem(name) or f"{bucket!r} is not a valid bucket name")
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.tmp")
    partial.write_bytes(data)
    partial.replace(path)
    return path


def object_uri(bucket: str, name: str) -> str:
    """`gs://bucket/name`, the URI that names the object (the inverse of `split_uri`)."""
    return f"gs://{bucket}/{name}"


NONCURRENT_DIR = ".noncurrent"
"""Where a versioned bucket's noncurrent generations are kept: `GCS_DIR/.noncurrent/BUCKET/GENERATION/NAME`.
No bucket is named `.noncurrent` (a bucket name starts with a letter or digit), so nothing reads them as
live objects: a gs:// URI names the live generation only, as on GCS."""


def noncurrent_folder(gcs: Path, bucket: str) -> Path:
    """The folder of a bucket's noncurrent generations."""
    return gcs / NONCURRENT_DIR / bucket


def noncurrent_file(gcs: Path, bucket: str, name: str, generation: str) -> Path | None:
    """The file that keeps generation `generation` of `gs://bucket/name` once it is noncurrent."""
    live = object_file(gcs, bucket, name)
    if live is None or not generation.isdigit():
        return None
    return noncurrent_folder(gcs, bucket) / generation / name


def noncurrent_generations(gcs: Path, bucket: str) -> list[tuple[str, str, Path]]:
    """(object name, generation, file) of every noncurrent generation the bucket keeps."""
    folder = noncurrent_folder(gcs, bucket)
    out = []
    for path in sorted(folder.glob("*/**/*")) if folder.exists() else []:
        if path.is_file():
            generation, _, name = path.relative_to(folder).as_posix().partition("/")
            out.append((name, generation, path))
    return out


def split_uri(uri: str) -> tuple[str, str] | None:
    """`gs://bucket/name` → (bucket, name); None for anything else."""
    if not uri.startswith("gs://"):
        return None
    bucket, sep, name = uri.removeprefix("gs://").partition("/")
    return (bucket, name) if sep and bucket and name else None
