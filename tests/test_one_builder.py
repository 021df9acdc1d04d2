"""`pulumi up`, `tunifolk launch` and `tunifolk estimate` build the job from one builder.

A run launched from the CLI is adopted by a later `pulumi up` only if both compute the same spec
hash; this runs the real program (under Pulumi's mocks, which stand in for the engine and Google)
and the real CLI paths, and compares the three hashes.
"""

from __future__ import annotations

import argparse
import json

import pulumi

from mocked_program import JOB, run_program, stack_config
from tunifolk.cli import context, main
from tunifolk.job import bodies
from tunifolk.job.fields import SPEC_LABEL


def test_program_launch_and_estimate_give_the_same_spec_hash(capsys) -> None:
    _, monitor, outputs, _ = run_program(stack_config("dev"))
    (request,) = [r for r in monitor.requests if r.type == JOB]
    registered = pulumi.runtime.rpc.deserialize_properties(request.object)
    program_inputs = {k: v for k, v in registered.items() if k != "__provider"}
    from_program = bodies.build_tuning_job(program_inputs)["labels"][SPEC_LABEL]

    deployed = {
        "scorer_uri": outputs["scorer_uri"],
        "train_uri": outputs["train_uri"],
        "validation_uri": outputs["validation_uri"],
    }
    launch_args = argparse.Namespace(
        stack="dev", project=None, location=None, validation_example=None, **deployed
    )
    from_launch = bodies.build_tuning_job(context.job_inputs(launch_args))["labels"][SPEC_LABEL]

    flags = [f"--{k.replace('_', '-')}={v}" for k, v in deployed.items()]
    assert main(["estimate", "--stack", "dev", "--json", *flags]) == 0
    from_estimate = json.loads(capsys.readouterr().out)["spec_hash"]

    assert from_program == from_launch == from_estimate
    assert len(from_program) == 16


def test_a_changed_deployed_value_changes_the_hash() -> None:
    """The comparison above could not pass by accident: the hash follows the inputs."""
    base = argparse.Namespace(
        stack="dev",
        project=None,
        location=None,
        validation_example=None,
        scorer_uri="https://scorer-xyz-uc.a.run.app",
        train_uri="gs://b/rlft/v1/train.jsonl",
        validation_uri="gs://b/rlft/v1/validation.jsonl",
    )
    other = argparse.Namespace(**{**vars(base), "train_uri": "gs://b/rlft/v2/train.jsonl"})
    first = bodies.build_tuning_job(context.job_inputs(base))["labels"][SPEC_LABEL]
    second = bodies.build_tuning_job(context.job_inputs(other))["labels"][SPEC_LABEL]
    assert first != second
