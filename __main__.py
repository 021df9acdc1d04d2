"""The tunifolk Pulumi program: read the stack config, build the components, export the outputs."""

from pathlib import Path

import pulumi

from components.apis import EnabledApis, project_number
from components.dataset import TuningDataset, TuningDatasetArgs
from components.ledger import RolloutLedger
from components.pipeline import TuningPipeline, TuningPipelineArgs
from components.scorer import RewardScorer, RewardScorerArgs, account_id, repository_id
from tunifolk import pulumi_config as config
from tunifolk.agents import job_account, tuning_agent
from tunifolk.job.field_names import Input

cfg = config.load()
apis = EnabledApis("apis", cfg.project) if cfg.enable_apis else None
number = project_number(cfg.project, apis)  # after the APIs are on
after_apis = pulumi.ResourceOptions(depends_on=apis.ready if apis else [])

dataset = TuningDataset(
    "dataset",
    TuningDatasetArgs(
        location=cfg.region,
        train_path=cfg.dataset.train,
        validation_path=cfg.dataset.validation,
        prefix=cfg.dataset.prefix,
        force_destroy=cfg.force_destroy_bucket,
        labels=cfg.labels,
        reader=tuning_agent(number),
        job_reader=job_account(cfg.job.get(Input.SERVICE_ACCOUNT)),
    ),
    opts=after_apis,
)
scorer = (
    RewardScorer(
        "scorer",
        RewardScorerArgs(
            project=cfg.project,
            region=cfg.region,
            project_number=number,
            config=cfg.scorer,
            account_id=account_id(pulumi.get_stack()),
            bucket=dataset.bucket.name,  # the image's source archive goes there
            storage=dataset,  # and the build waits for it: the bucket and its grants
            source_dir=Path(__file__).resolve().parent,  # this checkout's scorer/ is built
            repository_id=repository_id(pulumi.get_stack()),
            labels=cfg.labels,
            job_account=job_account(cfg.job.get(Input.SERVICE_ACCOUNT)),
        ),
        opts=after_apis,
    )
    if cfg.scorer
    else None
)
ledger = (
    RolloutLedger(
        "ledger", cfg.project, pulumi.get_stack(), scorer.service.name, labels=cfg.labels, opts=after_apis
    )
    if scorer
    else None
)
pipeline = TuningPipeline(
    "rlft",
    TuningPipelineArgs(
        config=cfg,
        dataset=dataset,
        scorer=scorer,
        validation_example=config.validation_example(cfg),
    ),
    opts=after_apis,
)
job = pipeline.job

pulumi.export("bucket", dataset.bucket.name)
pulumi.export("train_uri", dataset.train_uri)
pulumi.export("validation_uri", dataset.validation_uri)
pulumi.export("example_count", dataset.example_count)
pulumi.export("scorer_uri", scorer.uri if scorer else None)
pulumi.export("scorer_image", scorer.image if scorer else None)
pulumi.export("ledger_dataset", ledger.dataset_id if ledger else None)
pulumi.export("job", job.name)
pulumi.export("state", job.state)
pulumi.export("endpoint", job.endpoint)
pulumi.export("serving_host", job.serving_host)
pulumi.export("checkpoints", job.checkpoints)
pulumi.export("best_checkpoint", job.best_checkpoint)
pulumi.export("total_steps", job.total_steps)
pulumi.export("completed_steps", job.completed_steps)
pulumi.export("console_url", job.console_url)
