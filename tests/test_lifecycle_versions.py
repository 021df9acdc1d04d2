"""The provider against the emulator's model-version rules and its tuning-job quota (issue 19, section 5).

models.deleteVersion refuses the only version of a model and its default version (the discovery
document); a continuous-tuning run's cleanup must still remove its own version and nothing else.
A project at its quota of concurrent tuning jobs refuses one more: create fails on one line naming
the fix, and nothing is created.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from jobs import FAST, checked, exists, fast_emulator, inputs, jobs_in
from providers.tuning_job import RlftTuningJobProvider
from tunifolk import operations as ops
from tunifolk.errors import TunifolkError
from tunifolk.job import names
from tunifolk.vertex import ENDPOINT_ENV, VertexClient


def endpoints(outs: dict[str, Any]) -> list[str]:
    return [outs["endpoint"], *(c["endpoint"] for c in outs["checkpoints"])]


def continuous(provider: RlftTuningJobProvider, scorer_uri: str, parent: str) -> Any:
    pre = {"tuned_model_name": parent, "checkpoint_id": "2"}
    return provider.create(checked(inputs(scorer_uri, base_model=None, pre_tuned_model=pre)))


def versions(client: VertexClient, model: str) -> dict[str, list[str]]:
    return {v["versionId"]: v.get("versionAliases") or [] for v in client.list_model_versions(model)}


def test_cleanup_moves_the_default_off_its_own_version_then_deletes_only_it(
    gcs: Path, scorer_uri: str, monkeypatch
) -> None:
    """Whether Vertex makes a continuous-tuning version the default is UNCONFIRMED: when it is, the
    default goes back to the version the config named, and only the run's own version is deleted."""
    with fast_emulator(gcs) as emu, VertexClient(endpoint=emu) as client:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        provider = RlftTuningJobProvider(**FAST)
        first = provider.create(checked(inputs(scorer_uri)))
        base = names.base(first.outs["tuned_model"])
        second = continuous(provider, scorer_uri, base + "@1")
        own = second.outs["tuned_model"]
        assert own == base + "@2"
        client.merge_version_aliases(own, ["default"])
        assert versions(client, base) == {"1": [], "2": ["default"]}

        provider.delete(second.id, second.outs)
        assert versions(client, base) == {"1": ["default"]}  # the parent's version is whole and default
        assert not any(exists(emu, e) for e in endpoints(second.outs))
        assert all(exists(emu, e) for e in endpoints(first.outs))


def test_cleanup_of_the_only_version_left_deletes_the_model(gcs: Path, scorer_uri: str, monkeypatch) -> None:
    """When the parent's other versions are gone, the run's version is the model's only one, which
    deleteVersion refuses: the model, holding nothing but that version, is deleted instead."""
    with fast_emulator(gcs) as emu, VertexClient(endpoint=emu) as client:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        provider = RlftTuningJobProvider(**FAST)
        first = provider.create(checked(inputs(scorer_uri)))
        base = names.base(first.outs["tuned_model"])
        second = continuous(provider, scorer_uri, base)
        client.merge_version_aliases(second.outs["tuned_model"], ["default"])
        for endpoint in endpoints(first.outs):  # the user removes the first run's version by hand
            ops._remove_endpoint(client, endpoint)
        client.wait_operation(client.delete_model_version(base + "@1"))
        assert versions(client, base) == {"2": ["default"]}

        provider.delete(second.id, second.outs)
        assert not exists(emu, base) and not any(exists(emu, e) for e in endpoints(second.outs))


def test_create_at_the_concurrent_job_quota_fails_on_one_line_naming_the_fix(
    gcs: Path, scorer_uri: str, monkeypatch
) -> None:
    with fast_emulator(gcs, "--concurrent-tuning-jobs", "1", "--step-seconds", "0.5") as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        provider = RlftTuningJobProvider(**FAST)
        running = provider.create(checked(inputs(scorer_uri, wait="none")))
        other = inputs(scorer_uri, wait="none")
        other["hyper_parameters"]["learning_rate_multiplier"] = 2.0
        with pytest.raises(TunifolkError) as refused:
            provider.create(checked(other))
        message = str(refused.value)
        assert "\n" not in message and "429 RESOURCE_EXHAUSTED (RESOURCE_QUOTA_EXCEEDED)" in message
        assert "`tunifolk list`" in message and "`tunifolk cancel JOB`" in message
        assert [j["name"] for j in jobs_in(emu)] == [running.id]  # nothing else was created
        provider.delete(running.id, running.outs)
