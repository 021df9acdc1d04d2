"""The one builder of a job's inputs from the stack's config and what the stack deployed.

`TuningPipeline` (with Pulumi Outputs), `tunifolk launch` and `tunifolk estimate` (with plain
values) all call `job_inputs`, so `pulumi up` and the CLI build the same inputs and so the same
spec hash: a run launched from the CLI is adopted by a later `pulumi up`.
"""

from __future__ import annotations

from typing import Any

from tunifolk.job.fields import SCORER_PLACEHOLDER


def with_scorer(rewards: list[dict[str, Any]], scorer_uri: Any) -> list[dict[str, Any]]:
    """Rewards with `cloudRun: scorer` replaced by the deployed scorer's URI (an Output is fine)."""
    out = []
    for reward in rewards:
        run = reward.get("cloud_run")
        if isinstance(run, dict) and run.get("uri") == SCORER_PLACEHOLDER:
            reward = {**reward, "cloud_run": {"uri": scorer_uri}}
        out.append(reward)
    return out


def uses_scorer(rewards: list[dict[str, Any]]) -> bool:
    """True when a reward names this stack's scorer (`cloudRun: scorer`)."""
    return any((r.get("cloud_run") or {}).get("uri") == SCORER_PLACEHOLDER for r in rewards)


def job_inputs(
    config_inputs: dict[str, Any],
    *,
    training_dataset_uri: Any,
    validation_dataset_uri: Any = None,
    training_example_count: Any = None,
    scorer_uri: Any = None,
    validation_example: Any = None,
) -> dict[str, Any]:
    """The RlftTuningJob inputs: the config's, completed by the deployed values.

    Values may be Pulumi Outputs (the program) or plain values (the CLI); None means not set.
    """
    inputs = {
        **config_inputs,
        "rewards": with_scorer(config_inputs.get("rewards") or [], scorer_uri),
        "training_dataset_uri": training_dataset_uri,
        "validation_dataset_uri": validation_dataset_uri,
        "training_example_count": training_example_count,
        "validation_example": validation_example,
    }
    return {k: v for k, v in inputs.items() if v is not None}
