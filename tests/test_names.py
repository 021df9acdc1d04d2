"""Resource names compared whichever form, ID or number, names the project (tunifolk.job.names), and the
cleanup decision that rides on it: a continuous-tuning job never deletes its parent model."""

from __future__ import annotations

import pytest

from tunifolk import operations as ops
from tunifolk.job import names

ID, NUMBER = "my-project", "123456789012"
MODEL = "locations/us-central1/models/555"


@pytest.mark.parametrize(
    ("config", "answered"),
    [(ID, NUMBER), (NUMBER, ID), (ID, ID), (NUMBER, NUMBER)],
    ids=["config-id/service-number", "config-number/service-id", "id/id", "number/number"],
)
def test_a_continuous_job_owns_only_its_version_whichever_form_names_the_project(
    config: str, answered: str
) -> None:
    parent = {"tuned_model_name": f"projects/{config}/{MODEL}", "checkpoint_id": "2"}
    tuned = f"projects/{answered}/{MODEL}@3"
    assert ops.own_model(tuned, parent) == (tuned, False)
    assert ops.own_model(tuned, parent, [{ID, NUMBER}]) == (tuned, False)


def test_a_model_of_its_own_is_deleted_whole() -> None:
    parent = {"tuned_model_name": f"projects/{ID}/{MODEL}"}
    mine = f"projects/{NUMBER}/locations/us-central1/models/777@1"
    assert ops.own_model(mine, parent) == (mine.partition("@")[0], True)
    assert ops.own_model(mine, None) == (mine.partition("@")[0], True)


def test_aliases_from_the_job_name_and_the_config() -> None:
    job = {"name": f"projects/{NUMBER}/locations/us-central1/tuningJobs/9"}
    assert ops.project_aliases(job, {"project": ID}) == [{ID, NUMBER}]
    assert ops.project_aliases({}, {"project": ID}) == []


def test_same_resource() -> None:
    a = f"projects/{ID}/{MODEL}"
    assert names.same_resource(a, f"projects/{NUMBER}/{MODEL}")
    assert names.same_resource(a, f"projects/{NUMBER}/{MODEL}", [{ID, NUMBER}])
    # an alias group that ties the ID to another number says they differ
    assert not names.same_resource(a, f"projects/{NUMBER}/{MODEL}", [{ID, "999999999999"}])
    assert not names.same_resource(a, f"projects/other-project/{MODEL}")
    assert not names.same_resource(a, f"projects/{ID}/locations/us-central1/models/556")
    assert not names.same_resource(a, f"projects/{ID}/locations/europe-west4/models/555")
    assert names.base(f"{a}@3") == a and names.version(f"{a}@3") == "3" and names.version(a) == ""
