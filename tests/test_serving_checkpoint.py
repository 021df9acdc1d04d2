"""Promotion through the stack: `serving_checkpoint` makes the job's `endpoint` output a checkpoint's,
a wrong ID stops preview (the provider's diff) on one line listing the IDs the job has, and cleanup
keeps the served checkpoint's endpoint and model. Against the emulator and the real scorer, with the
real provider (only Google is replaced)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jobs import FAST, checked, exists, fast_emulator, inputs
from providers.tuning_job import RlftTuningJobProvider
from tunifolk.errors import TunifolkError
from tunifolk.job.field_names import Input
from tunifolk.vertex import ENDPOINT_ENV

pytestmark = pytest.mark.slow


def test_a_served_checkpoint_is_the_endpoint_and_outlives_cleanup(
    gcs: Path, scorer_uri: str, monkeypatch
) -> None:
    with fast_emulator(gcs) as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        provider = RlftTuningJobProvider(**FAST)
        props = checked(inputs(scorer_uri))
        created = provider.create(props)
        outs = created.outs
        first, last = outs["checkpoints"][0], outs["checkpoints"][-1]
        assert outs["endpoint"] != first["endpoint"]  # unset: the service's final endpoint

        news = checked({**inputs(scorer_uri), Input.SERVING_CHECKPOINT: first["checkpoint_id"]})
        decided = provider.diff(created.id, outs, news)
        assert decided.changes and not decided.replaces  # an update in place, shown by preview
        updated = provider.update(created.id, outs, news).outs
        assert updated["endpoint"] == first["endpoint"]
        assert updated["serving_host"] == "aiplatform.us.rep.googleapis.com"
        read = provider.read(created.id, updated)
        assert read.outs["endpoint"] == first["endpoint"]  # refresh keeps it

        provider.delete(created.id, read.outs)
        assert exists(emu, first["endpoint"]), "the served checkpoint's endpoint must stay"
        assert exists(emu, outs["tuned_model"].split("@")[0]), "and the model it serves"
        assert not exists(emu, last["endpoint"]) and not exists(emu, outs["endpoint"])


def test_a_checkpoint_the_job_does_not_have_stops_preview_listing_the_ids(
    gcs: Path, scorer_uri: str, monkeypatch
) -> None:
    with fast_emulator(gcs) as emu:
        monkeypatch.setenv(ENDPOINT_ENV, emu)
        provider = RlftTuningJobProvider(**FAST)
        created = provider.create(checked(inputs(scorer_uri)))
        ids = [c["checkpoint_id"] for c in created.outs["checkpoints"]]
        news = checked({**inputs(scorer_uri), Input.SERVING_CHECKPOINT: "99"})
        with pytest.raises(TunifolkError) as caught:
            provider.diff(created.id, created.outs, news)
        message = str(caught.value)
        assert "\n" not in message and "99" in message and f"it has {', '.join(ids)}" in message
        replaced = checked(
            {**inputs(scorer_uri, tuned_model_display_name="another-run"), Input.SERVING_CHECKPOINT: ids[0]}
        )
        with pytest.raises(TunifolkError, match="replaces"):
            provider.diff(created.id, created.outs, replaced)


def test_a_first_up_cannot_name_a_checkpoint(scorer_uri: str) -> None:
    provider = RlftTuningJobProvider(**FAST)
    result = provider.check({}, {**inputs(scorer_uri), Input.SERVING_CHECKPOINT: "1"})
    assert [f.property for f in result.failures] == [Input.SERVING_CHECKPOINT]
    again = provider.check(inputs(scorer_uri), {**inputs(scorer_uri), Input.SERVING_CHECKPOINT: "1"})
    assert not again.failures
