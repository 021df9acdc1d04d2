"""Shared inputs for the tuning-job tests: a small RLFT run over a generated dataset."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import requests

import servers
from tunifolk.job import checks
from tunifolk.local_gcs import write_object

ROOT = Path(__file__).resolve().parent.parent
PROJECT = "tunifolk-test"
BUCKET = "tunifolk-data"
SEEDED_FAULTS = (
    *("--fault-seed", "11"),
    *("--fault-503-rate", "0.2", "--fault-429-rate", "0.1", "--retry-after", "0"),
)
"""20 % 503s and 10 % 429s (Retry-After: 0) from a fixed seed: the same faults on every run."""
FAST = {"poll_seconds": 0.05, "max_poll_seconds": 0.2, "permission_retry_interval": 0.05}


def deployed(scorer_uri: str) -> list[str]:
    """The CLI flags naming what `pulumi up` deployed: the scorer and the dataset `write_dataset` writes."""
    return [
        "--scorer-uri",
        scorer_uri,
        "--train-uri",
        f"gs://{BUCKET}/rlft/train.jsonl",
        "--validation-uri",
        f"gs://{BUCKET}/rlft/validation.jsonl",
    ]


def sample_poem() -> str:
    return (ROOT / "data" / "samples" / "malzuma.txt").read_text(encoding="utf-8")


def write_dataset(gcs: Path, lines: int) -> None:
    """`lines` training examples and 8 validation ones where `deployed` names them."""
    for split, count in (("train", lines), ("validation", 8)):
        text = "".join(json.dumps(example(i)) + "\n" for i in range(count))
        write_object(gcs, BUCKET, f"rlft/{split}.jsonl", text.encode())


def example(i: int = 0) -> dict[str, Any]:
    return {
        "systemInstruction": {"parts": [{"text": "You are a Tunisian folk poet."}]},
        "contents": [{"role": "user", "parts": [{"text": f"Write a malzuma about the sea, take {i}."}]}],
        "references": {
            "form": "malzuma",
            "stanzas": "5",
            "refrain": "yes",
            "script": "arabic",
            "theme": "sea",
        },
    }


PARSED_JUDGE = {
    "prompt": "Rate {{response}} from -1 to 1 inside <answer></answer>",
    "parse": {"type": "regex_extract", "regex": "<answer>(.*?)</answer>"},
}
"""A judge whose answer is parsed: what survives the emulator's `--hostile-reading judge-prose` (the
default judge, "Rate {{response}}", read whole, is the one the old states were written with)."""


def inputs(scorer_uri: str, **over: Any) -> dict[str, Any]:
    base = {
        "project": PROJECT,
        "location": "us-central1",
        "base_model": "gemini-3.5-flash",
        "tuned_model_display_name": "tunifolk-test",
        "training_dataset_uri": f"gs://{BUCKET}/rlft/train.jsonl",
        "validation_dataset_uri": f"gs://{BUCKET}/rlft/validation.jsonl",
        "training_example_count": 64.0,
        "hyper_parameters": {
            "batch_size": 16.0,
            "samples_per_prompt": 2.0,
            "epoch_count": 1.0,
            "learning_rate_multiplier": 1.0,
            "adapter_size": "ADAPTER_SIZE_SIXTEEN",
            "max_output_tokens": 32768.0,
            "thinking_level": "HIGH",
            "evaluate_interval": 2.0,
            "checkpoint_interval": 2.0,
        },
        "rewards": [
            {"name": "structure", "weight": 0.7, "cloud_run": {"uri": scorer_uri}},
            {
                "name": "poetic_quality",
                "weight": 0.3,
                "autorater": {
                    "model": "gemini-2.5-pro",
                    "sampling_count": 4.0,
                    "prompt": "Rate {{response}}",
                },
            },
        ],
        "validation_example": {
            "example": example(),
            "sample_response": {"role": "model", "parts": [{"text": sample_poem()}]},
        },
        "wait": "succeeded",
        "cleanup": "all",
    }
    base.update(over)
    return base


def fast_emulator(gcs: Path, *extra: str) -> Any:
    """The emulator at 0.02 s a step, reading gs:// from `gcs` (a context manager: its URL)."""
    return servers.emulator("--step-seconds", "0.02", "--gcs-dir", str(gcs), *extra)


def checked(props: dict[str, Any]) -> dict[str, Any]:
    """The inputs as the provider's check returns them; the test fails on any check failure."""
    report = checks.check_inputs(props)
    assert report.failures == [], report.failures
    return report.inputs


def jobs_in(emulator: str, project: str = PROJECT) -> list[dict[str, Any]]:
    url = f"{emulator}/v1beta1/projects/{project}/locations/us-central1/tuningJobs"
    resp = requests.get(url, timeout=10)
    resp.raise_for_status()
    return resp.json().get("tuningJobs", [])


def exists(emulator: str, name: str) -> bool:
    return requests.get(f"{emulator}/v1beta1/{name}", timeout=10).status_code == 200
