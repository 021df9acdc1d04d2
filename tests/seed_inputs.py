"""The seed's dev run as the job's inputs, and that run with one value changed: the base of the
check, diff and estimate tests (tests/test_spec.py, tests/test_estimate.py)."""

from __future__ import annotations

from typing import Any

PROMPT = "Rate the poem {{response}} for {{prompt}}. Answer inside <answer></answer>."


def base_inputs() -> dict[str, Any]:
    """The seed's dev run: passes check with no failure."""
    return {
        "project": "my-project",
        "location": "us-central1",
        "base_model": "gemini-3.5-flash",
        "training_dataset_uri": "gs://bucket/rlft/v1/train.jsonl",
        "validation_dataset_uri": "gs://bucket/rlft/v1/validation.jsonl",
        "training_example_count": 843,
        "hyper_parameters": {
            "batch_size": 32,
            "samples_per_prompt": 16,
            "epoch_count": 6,
            "learning_rate_multiplier": 1.0,
            "adapter_size": "ADAPTER_SIZE_SIXTEEN",
            "max_output_tokens": 32768,
            "thinking_level": "HIGH",
            "evaluate_interval": 13,
            "checkpoint_interval": 26,
        },
        "rewards": [
            {"name": "structure", "weight": 0.7, "cloud_run": {"uri": "https://scorer-abc-uc.a.run.app"}},
            {
                "name": "poetic_quality",
                "weight": 0.3,
                "autorater": {
                    "model": "gemini-2.5-pro",
                    "sampling_count": 4,
                    "prompt": PROMPT,
                    "parse": {"type": "regex_extract", "regex": "<answer>(.*?)</answer>"},
                },
            },
        ],
        "validation_example": {
            "example": {
                "systemInstruction": {"parts": [{"text": "You write Tunisian folk poetry."}]},
                "contents": [{"role": "user", "parts": [{"text": "Write a malzuma about the sea."}]}],
                "references": {"form": "malzuma", "stanzas": "5"},
            },
            "sample_response": {"role": "model", "parts": [{"text": "a poem"}]},
        },
    }


def with_change(path: str, value: Any) -> dict[str, Any]:
    """base_inputs with one value set (dotted path, [i] for list items; value None deletes)."""
    inputs = base_inputs()
    parts = path.replace("[", ".").replace("]", "").split(".")
    target: Any = inputs
    for part in parts[:-1]:
        target = target[int(part)] if isinstance(target, list) else target[part]
    last = parts[-1]
    if isinstance(target, list):
        target[int(last)] = value
    elif value is None:
        target.pop(last, None)
    else:
        target[last] = value
    return inputs
