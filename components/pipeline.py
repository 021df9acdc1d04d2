"""TuningPipeline: wires the dataset, the scorer and the reward layout into one RlftTuningJob.

The job takes the dataset URIs and example count from TuningDataset, the scorer's URI for every
`cloudRun: scorer` reward, and a `validation_example` pairing a real dataset line with a real
response; `tunifolk.job.inputs.job_inputs` assembles them, the same builder `tunifolk launch`
uses. The job depends on the invoker grants, so Vertex may call the scorer before the reward is
validated and the job created, and on the dataset's read grants for the same reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pulumi

from components.dataset import TuningDataset
from components.scorer import RewardScorer
from providers.tuning_job import RlftTuningJob
from tunifolk.job.inputs import job_inputs
from tunifolk.stack import StackConfig


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
        inputs = job_inputs(
            args.config.job,
            training_dataset_uri=args.dataset.train_uri,
            validation_dataset_uri=args.dataset.validation_uri,
            training_example_count=args.dataset.example_count,
            scorer_uri=args.scorer.uri if args.scorer else None,
            validation_example=args.validation_example,
        )
        depends: list[pulumi.Resource] = [*args.scorer.invokers] if args.scorer else []
        depends += list(opts.depends_on or []) if opts and isinstance(opts.depends_on, list) else []
        depends += args.dataset.reader_grants  # the agent's, and the job's account's when it sets one
        self.job = RlftTuningJob(
            name,
            inputs,
            opts=pulumi.ResourceOptions(parent=self, depends_on=depends),
            poll_seconds=args.config.poll_seconds,
        )
        self.register_outputs({"job": self.job.name, "state": self.job.state, "endpoint": self.job.endpoint})
