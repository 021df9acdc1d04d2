"""The folder that plays Cloud Storage (tunifolk/local_gcs.py): what one side writes, the other reads.

`tunifolk demo`, the tests and the stand-ins write `gs://` objects with `write_object`; the Vertex
emulator reads them by the same layout (`tunifolk.emulator.lifecycle.read_dataset`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tunifolk.emulator.lifecycle import read_dataset
from tunifolk.local_gcs import object_file, object_uri, split_uri, write_object


def test_an_object_written_is_the_one_the_emulator_reads(tmp_path: Path) -> None:
    gcs = tmp_path / "gcs"
    lines = [{"contents": [{"role": "user", "parts": [{"text": f"line {i}"}]}]} for i in range(3)]
    data = "".join(json.dumps(line) + "\n" for line in lines).encode()
    path = write_object(gcs, "tunifolk-data", "rlft/v1/train.jsonl", data)
    uri = object_uri("tunifolk-data", "rlft/v1/train.jsonl")
    assert uri == "gs://tunifolk-data/rlft/v1/train.jsonl" and split_uri(uri) == (
        "tunifolk-data",
        "rlft/v1/train.jsonl",
    )
    assert path == object_file(gcs, "tunifolk-data", "rlft/v1/train.jsonl") and path.read_bytes() == data
    assert read_dataset(gcs, uri, 10) == lines
    write_object(gcs, "tunifolk-data", "rlft/v1/train.jsonl", data[: len(data) // 3])  # replaced whole
    assert read_dataset(gcs, uri, 10) == lines[:1]
    assert [p.name for p in path.parent.iterdir()] == ["train.jsonl"]  # no partial file left behind


@pytest.mark.parametrize(
    ("bucket", "name"), [("b", "x"), ("tunifolk-data", "../escape"), ("tunifolk-data", "a//b"), ("..", "x")]
)
def test_a_name_gcs_or_the_folder_cannot_hold_writes_nothing(tmp_path: Path, bucket: str, name: str) -> None:
    with pytest.raises(ValueError):
        write_object(tmp_path / "gcs", bucket, name, b"{}\n")
    assert not any(tmp_path.rglob("*"))
