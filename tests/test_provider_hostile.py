"""The provider against the emulator playing a hostile reading of what Google documents: an API the
stack has just enabled still answers SERVICE_DISABLED for a while ("If you enabled this API recently,
wait a few minutes for the action to propagate", Google's own error text; docs/google-contract.md,
SU-04). Create waits it out, bounded, and then names the fix on one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from jobs import FAST, PROJECT, checked, exists, fast_emulator, inputs, jobs_in
from providers.tuning_job import RlftTuningJobProvider
from tunifolk import operations as ops
from tunifolk.errors import VertexError
from tunifolk.invoker import TIME_SCALE_ENV
from tunifolk.project_state import ProjectState
from tunifolk.vertex import ENDPOINT_ENV

pytestmark = pytest.mark.slow  # an emulator and a scorer


@pytest.fixture
def fresh(tmp_path: Path) -> ProjectState:
    state = ProjectState(tmp_path / "standin")
    state.make_fresh(enable_seconds=2.0)
    return state


def test_create_waits_for_an_api_that_is_still_being_enabled(
    fresh: ProjectState, gcs: Path, scorer_uri: str, monkeypatch, capfd
) -> None:
    monkeypatch.setenv(TIME_SCALE_ENV, "0.02")  # the 15 s retry interval becomes 0.3 s
    with fast_emulator(gcs, "--project-dir", str(fresh.root)) as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        # applies in 2 s, as the stack's enable has just run: from here, not before the emulator's
        # start, which can take that long on a loaded machine
        fresh.enable(PROJECT, "aiplatform.googleapis.com")
        made = RlftTuningJobProvider(**FAST).create(checked(inputs(scorer_uri)))
        assert made.id and [j["name"] for j in jobs_in(emu)] == [made.id]
    assert "still answers SERVICE_DISABLED" in capfd.readouterr().err


def test_an_api_never_enabled_stops_create_on_one_line_naming_the_command(
    fresh: ProjectState, gcs: Path, scorer_uri: str, monkeypatch
) -> None:
    monkeypatch.setenv(TIME_SCALE_ENV, "0.02")
    monkeypatch.setattr(ops, "ENABLE_PROPAGATION_S", 30.0)  # 0.6 s at this scale
    with fast_emulator(gcs, "--project-dir", str(fresh.root)) as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        with pytest.raises(VertexError) as refused:
            RlftTuningJobProvider(**FAST).create(checked(inputs(scorer_uri)))
    assert refused.value.service_disabled and "\n" not in str(refused.value)
    assert "gcloud services enable aiplatform.googleapis.com" in str(refused.value)


def test_a_continuous_run_named_without_its_version_outputs_and_deletes_only_its_version(
    gcs: Path, scorer_uri: str, monkeypatch
) -> None:
    """The service names the tuned model `models/M` without `@N` (MOD-03): the stack still outputs the
    version this run made, and destroy deletes that version and nothing of the parent."""
    with fast_emulator(gcs, "--hostile-reading", "unversioned-model") as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        provider = RlftTuningJobProvider(**FAST)
        first = provider.create(checked(inputs(scorer_uri)))
        parent = first.outs["tuned_model"]
        assert "@" not in parent  # the job made the model: its bare name is the whole of it
        pre = {"tuned_model_name": parent, "checkpoint_id": "2"}
        second = provider.create(checked(inputs(scorer_uri, base_model=None, pre_tuned_model=pre)))
        assert second.outs["tuned_model"] == parent + "@2"
        again = provider.read(second.id, second.outs)  # a refresh keeps the resolved name
        assert again.outs["tuned_model"] == parent + "@2"

        provider.delete(second.id, second.outs)
        assert (
            not exists(emu, parent + "@2")
            and exists(emu, parent + "@1")
            and exists(emu, first.outs["endpoint"])
        )


def test_a_continuous_run_with_a_display_name_of_its_own_makes_a_model_it_owns_whole(
    gcs: Path, scorer_uri: str, monkeypatch
) -> None:
    """Continuous tuning adds a version to the pre-tuned model unless the job names another display
    name, which makes a new model at version 1 (the discovery document, MOD-01/02): cleanup then deletes
    that model whole, and the parent's stays."""
    with fast_emulator(gcs) as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        provider = RlftTuningJobProvider(**FAST)
        first = provider.create(checked(inputs(scorer_uri)))
        parent = first.outs["tuned_model"]
        pre = {"tuned_model_name": parent.partition("@")[0], "checkpoint_id": "2"}
        same = provider.create(checked(inputs(scorer_uri, base_model=None, pre_tuned_model=pre)))
        assert same.outs["tuned_model"] == parent.partition("@")[0] + "@2"  # the parent's name: a version
        other = checked(
            inputs(scorer_uri, base_model=None, pre_tuned_model=pre, tuned_model_display_name="v2")
        )
        renamed = provider.create(other)
        assert renamed.outs["tuned_model"].endswith("@1") and not renamed.outs["tuned_model"].startswith(
            parent.partition("@")[0]
        )
        provider.delete(renamed.id, renamed.outs)
        assert not exists(emu, renamed.outs["tuned_model"].partition("@")[0]) and exists(emu, parent)
