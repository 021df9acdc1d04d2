"""TuningPipeline: wires the dataset, the scorer and the reward layout into one RlftTuningJob.

The job takes the dataset URIs and example count from TuningDataset, the scorer's URI for every
`cloudRun: scorer` reward, and a `validation_example` pairing a real dataset line with a real
response. It depends on the invoker grant, so Vertex is allowed to call the scorer before the
reward is validated and the job is created — and on the dataset's read grant, for the same reason.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pulumi

from components.dataset import TuningDataset, local_file
from components.scorer import RewardScorer
from providers.stack import StackConfig
from providers.tuning_job import RlftTuningJob


def load_validation_example(path: str) -> dict[str, Any]:
    """`{example, sample_response}` from a JSON file (camelCase, as Google's shapes are)."""
    data = json.loads(Path(local_file(path)).read_text(encoding="utf-8"))
    if not isinstance(data, dict) or set(data) != {"example", "sample_response"}:
        raise ValueError(f"{path} must hold an object with exactly the keys example and sample_response")
    return data


@dataclass
class TuningPipelineArgs:
    config: StackConfig
    dataset: TuningDataset
    scorer: RewardScorer | None
    validation_example: dict[str, Any]


class TuningPipeline(pulumi.ComponentResource):
    """The RLFT job, fed by the stack's other components."""

    job: RlftTuningJob

    def __init__(
        self, name: str, args: TuningPipelineArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("tunifolk:rlft:TuningPipeline", name, None, opts)
        cfg = args.config
        scorer_uri = args.scorer.uri if args.scorer else None
        inputs: dict[str, Any] = {
            **cfg.job_inputs(),
            "training_dataset_uri": args.dataset.train_uri,
            "training_example_count": args.dataset.example_count,
            "rewards": cfg.rewards_with(scorer_uri),
            "validation_example": args.validation_example,
        }
        if args.dataset.validation_uri is not None:
            inputs["validation_dataset_uri"] = args.dataset.validation_uri
        depends: list[pulumi.Resource] = [args.scorer.invoker] if args.scorer else []
        if args.dataset.reader_grant is not None:
            depends.append(args.dataset.reader_grant)
        self.job = RlftTuningJob(name, inputs, opts=pulumi.ResourceOptions(parent=self, depends_on=depends))
        self.register_outputs({"job": self.job.name, "state": self.job.state, "endpoint": self.job.endpoint})
