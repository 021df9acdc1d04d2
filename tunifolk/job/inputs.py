"""The one builder of a job's inputs from the stack's config and what the stack deployed.

`TuningPipeline` (with Pulumi Outputs), `tunifolk launch` and `tunifolk estimate` (with plain
values) all call `job_inputs`, so `pulumi up` and the CLI build the same inputs and so the same
spec hash: a run launched from the CLI is adopted by a later `pulumi up`.
"""

from __future__ import annotations

from typing import Any

from tunifolk.job.field_names import Input, Reward, Scorer
from tunifolk.job.fields import SCORER_PLACEHOLDER


def with_scorer(rewards: list[dict[str, Any]], scorer_uri: Any) -> list[dict[str, Any]]:
    """Rewards with `cloudRun: scorer` replaced by the deployed scorer's URI (an Output is fine)."""
    out = []
    for reward in rewards:
        run = reward.get(Reward.CLOUD_RUN)
        if isinstance(run, dict) and run.get(Scorer.URI) == SCORER_PLACEHOLDER:
            reward = {**reward, Reward.CLOUD_RUN: {Scorer.URI: scorer_uri}}
        out.append(reward)
    return out


def uses_scorer(rewards: list[dict[str, Any]]) -> bool:
    """True when a reward names this stack's scorer (`cloudRun: scorer`)."""
    return any((r.get(Reward.CLOUD_RUN) or {}).get(Scorer.URI) == SCORER_PLACEHOLDER for r in rewards)


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
        Input.REWARDS: with_scorer(config_inputs.get(Input.REWARDS) or [], scorer_uri),
        Input.TRAINING_DATASET_URI: training_dataset_uri,
        Input.VALIDATION_DATASET_URI: validation_dataset_uri,
        Input.TRAINING_EXAMPLE_COUNT: training_example_count,
        Input.VALIDATION_EXAMPLE: validation_example,
    }
    return {k: v for k, v in inputs.items() if v is not None}
