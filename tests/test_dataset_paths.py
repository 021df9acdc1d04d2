"""Dataset files and object names stay where they belong.

* `tunifolk:dataset.train`/`validation` name files inside the project (no absolute path, no `..`),
  and `prefix` is a plain folder path: the stack config parser refuses the rest with one line
  naming the key (it runs at preview, and in every CLI command that reads the stack).
* The program resolves the file (links followed) inside the project root and checks it as tuning
  JSONL before anything is uploaded: `/etc/passwd` once became 24 "examples".
* The gcp stand-in refuses the object names GCS refuses (`.`, `..`, CR/LF, …) and those a file path
  cannot stand for (`../..`, empty segments), and never writes outside its folder — over its real
  gRPC protocol, as the engine calls it.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pulumi
import pytest
import yaml
from pulumi.runtime.proto import provider_pb2, provider_pb2_grpc

import servers
from components.dataset import local_file
from tunifolk import stack
from tunifolk.standin.server import to_dict, to_struct

ROOT = Path(__file__).resolve().parent.parent
DEV = yaml.safe_load((ROOT / "Pulumi.dev.yaml").read_text())["config"]


def with_dataset(**dataset: str) -> dict[str, Any]:
    return {**DEV, "tunifolk:dataset": {**DEV["tunifolk:dataset"], **dataset}}


# --------------------------------------------------------------------------- the stack config


@pytest.mark.parametrize(
    ("split", "path"),
    [
        ("train", "/etc/passwd"),
        ("train", "../../etc/passwd"),
        ("train", "data/../../outside.jsonl"),
        ("validation", "~/validation.jsonl"),
        ("validation", "data//validation.jsonl"),
    ],
)
def test_a_dataset_path_outside_the_project_fails_naming_its_key(split: str, path: str) -> None:
    with pytest.raises(stack.ConfigError) as caught:
        stack.parse(with_dataset(**{split: path}))
    message = str(caught.value)
    assert f"tunifolk:dataset.{split}" in message and "\n" not in message and repr(path) in message


@pytest.mark.parametrize("prefix", ["../..", "/rlft/v1", "rlft//v1", "rlft/./v1", "rlft/../..", "a\nb"])
def test_an_object_prefix_that_reads_as_a_path_escape_fails_naming_its_key(prefix: str) -> None:
    with pytest.raises(stack.ConfigError) as caught:
        stack.parse(with_dataset(prefix=prefix))
    assert "tunifolk:dataset.prefix" in str(caught.value) and "\n" not in str(caught.value).replace(
        prefix, ""
    )


def test_plain_paths_and_prefixes_pass() -> None:
    parsed = stack.parse(with_dataset(prefix="rlft/v2/", validation="data/validation.jsonl"))
    assert parsed.dataset.prefix == "rlft/v2" and parsed.dataset.train == "data/train.jsonl"


# --------------------------------------------------------------------------- the file itself


@pytest.fixture
def link_in_project() -> Iterator[Path]:
    """A folder under build/ (inside the project root, ignored by git) for links made by a test."""
    folder = ROOT / "build" / f"test-links-{uuid.uuid4().hex[:8]}"
    folder.mkdir(parents=True)
    try:
        yield folder
    finally:
        for item in folder.iterdir():
            item.unlink()
        folder.rmdir()


def test_a_link_out_of_the_project_is_not_uploaded(link_in_project: Path) -> None:
    (link_in_project / "train.jsonl").symlink_to("/etc/passwd")
    relative = str((link_in_project / "train.jsonl").relative_to(ROOT))
    with pytest.raises(pulumi.RunError, match=r"tunifolk:dataset\.train: .* outside the project"):
        local_file(relative)  # the training file: the split's default


def test_a_file_that_is_not_tuning_jsonl_is_not_uploaded() -> None:
    with pytest.raises(pulumi.RunError) as caught:
        local_file("pyproject.toml")
    message = str(caught.value)
    assert message.startswith("tunifolk:dataset.train: pyproject.toml:1: ") and "dataset check" in message
    assert "\n" not in message


def test_the_projects_dataset_passes() -> None:
    assert local_file("data/train.jsonl", "train") == (ROOT / "data/train.jsonl").resolve()
    assert local_file("data/validation.jsonl", "validation").name == "validation.jsonl"


# --------------------------------------------------------------------------- the gcp stand-in

BUCKET = "gcp:storage/bucket:Bucket"
OBJECT = "gcp:storage/bucketObject:BucketObject"


def urn(token: str, name: str) -> str:
    return f"urn:pulumi:test::tunifolk::{token}::{name}"


@pytest.fixture
def standin(tmp_path: Path) -> Iterator[tuple[provider_pb2_grpc.ResourceProviderStub, Path]]:
    """`python -m tunifolk.standin` as the engine runs it, configured, with its gs:// folder."""
    state, gcs = tmp_path / "standin", tmp_path / "root" / "gcs"
    with servers.standin(state, gcs) as stub:
        config = {"project": "tunifolk-test", "region": "us-central1"}
        variables = {f"gcp:config:{k}": v for k, v in config.items()}
        stub.Configure(provider_pb2.ConfigureRequest(variables=variables, args=to_struct(config)))
        yield stub, gcs


def check(stub: provider_pb2_grpc.ResourceProviderStub, token: str, inputs: dict[str, Any]) -> Any:
    return stub.Check(provider_pb2.CheckRequest(urn=urn(token, "r"), news=to_struct(inputs), randomSeed=b"s"))


@pytest.mark.slow  # each case starts the stand-in
@pytest.mark.parametrize(
    "name",
    [
        ".",
        "..",
        "a\nb",
        ".well-known/acme-challenge/x",
        "../../escape.jsonl",
        "a//b",
        "/abs",
        "a/./b",
        "x" * 1025,
    ],
)
def test_the_standin_refuses_object_names_gcs_or_its_files_cannot_hold(
    standin, tmp_path: Path, name: str
) -> None:
    stub, gcs = standin
    source = tmp_path / "train.jsonl"
    source.write_text('{"contents": []}\n')
    asset = {"4dabf18193072939515e22adb298388d": "c44067f5952c0a294b673a41bacd8c17", "path": str(source)}
    bucket = {"name": "tunifolk-data", "location": "us-central1"}
    checked = check(stub, BUCKET, bucket)
    stub.Create(provider_pb2.CreateRequest(urn=urn(BUCKET, "b"), properties=checked.inputs))
    inputs = {"bucket": "tunifolk-data", "name": name, "source": asset}
    failures = {f.property: f.reason for f in check(stub, OBJECT, inputs).failures}
    assert "name" in failures and "\n" not in failures["name"].replace(name, "")
    # Even unchecked (the engine always checks first), create writes nothing outside the bucket.
    with pytest.raises(grpc.RpcError):
        stub.Create(provider_pb2.CreateRequest(urn=urn(OBJECT, "o"), properties=to_struct(inputs)))
    written = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    outside = [p for p in written if p.parts[0] != "standin" and p != Path("train.jsonl")]
    assert outside == [], outside
    assert to_dict(checked.inputs)["name"] == "tunifolk-data" and (gcs / "tunifolk-data").is_dir()


@pytest.mark.parametrize(
    "uri", ["gs:///etc/passwd", "gs://bucket/../../escape.jsonl", "gs://bucket//x", "gs://B/x"]
)
def test_the_emulator_reads_only_objects_inside_their_bucket(tmp_path: Path, uri: str) -> None:
    """The emulator's dataset reader takes `gs://` names by the stand-in's rules (tunifolk.local_gcs):
    an absolute path, `..` or an invalid bucket never reaches the file system."""
    from tunifolk.emulator.lifecycle import DatasetError, read_dataset

    (tmp_path / "escape.jsonl").write_text('{"contents": []}\n')
    with pytest.raises(DatasetError, match="not a valid Cloud Storage object"):
        read_dataset(tmp_path / "gcs", uri, 10)
