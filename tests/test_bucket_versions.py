"""A versioned bucket in the stand-in, as GCS keeps one (issue 19, item 5): deleting an object leaves a
noncurrent generation that no gs:// URI reads, a bucket still holding one refuses deletion with GCS's
409 unless forceDestroy is set, and lifecycle Delete rules remove old generations. The dataset bucket
carries such rules (components/dataset.py)."""

from __future__ import annotations

import logging
from pathlib import Path

import grpc
import pytest
from test_standin import BUCKET, OBJECT, Provider, gcp  # noqa: F401 (gcp: the fixture)

from components.dataset import KEPT_BUCKET_WARNING, NONCURRENT_LIFECYCLE
from tunifolk.local_gcs import noncurrent_generations

pytestmark = pytest.mark.slow


def _asset(path: Path, text: str) -> dict:
    path.write_text(text)
    return {
        "4dabf18193072939515e22adb298388d": "c44067f5952c0a294b673a41bacd8c17",
        "path": str(path),
        "hash": text,
    }


def test_noncurrent_generations_block_deletion_until_force_destroy(gcp: Provider, tmp_path: Path) -> None:  # noqa: F811
    bucket = {"name": "tunifolk-versions", "location": "us-central1", "versioning": {"enabled": True}}
    bucket_id, outputs = gcp.create(BUCKET, "data", bucket)
    body = {"bucket": bucket_id, "name": "rlft/v1/train-abc.jsonl", "source": _asset(tmp_path / "a", "one\n")}
    obj_id, _ = gcp.create(OBJECT, "train", body)
    gcp.delete(OBJECT, obj_id)
    assert not (gcp.gcs / bucket_id / "rlft/v1/train-abc.jsonl").exists()  # gs:// reads the live one only
    kept = noncurrent_generations(gcp.gcs, bucket_id)
    assert [name for name, _, _ in kept] == ["rlft/v1/train-abc.jsonl"]
    assert kept[0][2].read_text() == "one\n"
    with pytest.raises(grpc.RpcError, match=r"Error 409: The bucket you tried to delete is not empty\."):
        gcp.delete(BUCKET, bucket_id)
    assert gcp.read(BUCKET, bucket_id).id == bucket_id
    gcp.update(BUCKET, bucket_id, outputs, {**bucket, "project": outputs["project"], "forceDestroy": True})
    gcp.delete(BUCKET, bucket_id)
    assert [p for p in gcp.gcs.rglob("*") if p.is_file()] == []


def test_lifecycle_rules_delete_generations_with_newer_versions(gcp: Provider, tmp_path: Path) -> None:  # noqa: F811
    rules = [{"action": {"type": "Delete"}, "condition": {"numNewerVersions": 1, "withState": "ARCHIVED"}}]
    bucket = {
        "name": "tunifolk-rules",
        "location": "us-central1",
        "versioning": {"enabled": True},
        "lifecycleRules": rules,
        "forceDestroy": True,
    }
    bucket_id, _ = gcp.create(BUCKET, "data", bucket)
    name = "rlft/v1/train.jsonl"
    first, _ = gcp.create(
        OBJECT, "a", {"bucket": bucket_id, "name": name, "source": _asset(tmp_path / "a", "1")}
    )
    gcp.delete(OBJECT, first)
    assert len(noncurrent_generations(gcp.gcs, bucket_id)) == 1  # no newer version yet: kept
    gcp.create(OBJECT, "b", {"bucket": bucket_id, "name": name, "source": _asset(tmp_path / "b", "2")})
    assert noncurrent_generations(gcp.gcs, bucket_id) == []  # one newer version: deleted by the rule
    assert (gcp.gcs / bucket_id / name).read_text() == "2"


def test_the_dataset_bucket_expires_old_versions() -> None:
    conditions = [rule["condition"] for rule in NONCURRENT_LIFECYCLE]
    assert all(rule["action"] == {"type": "Delete"} for rule in NONCURRENT_LIFECYCLE)
    assert {"days_since_noncurrent_time": 30} in conditions
    assert {"num_newer_versions": 3, "with_state": "ARCHIVED"} in conditions


@pytest.mark.parametrize("keep", [False, True])
def test_a_stack_that_keeps_its_bucket_is_told_at_preview_that_destroy_will_stop(
    keep: bool, caplog: pytest.LogCaptureFixture
) -> None:
    """`tunifolk:forceDestroyBucket: false` is the user's to set; the bucket is versioned, so destroy then
    stops on GCS's 409 (the test above). The program says so in one warning line naming both fixes,
    and says nothing with the default."""
    from mocked_program import run_program, stack_config

    config = stack_config("dev")
    if keep:
        config["tunifolk:forceDestroyBucket"] = "false"
    with caplog.at_level(logging.WARNING):
        _mocks, monitor, _, _ = run_program(config)
    (bucket,) = [r for r in monitor.requests if r.type == "gcp:storage/bucket:Bucket"]
    assert bucket.object["forceDestroy"] is not keep
    said = [r.getMessage() for r in caplog.records if "forceDestroyBucket" in r.getMessage()]
    if not keep:
        assert said == []
        return
    assert said == [KEPT_BUCKET_WARNING] and "\n" not in said[0]
    assert "pulumi config set tunifolk:forceDestroyBucket true" in said[0] and "--all-versions" in said[0]
