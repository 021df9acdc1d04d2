"""The emulator's judge answers as a model does, and Google's parse and conversion read that answer:
a prompt that asks for `<answer></answer>` without a REGEX_EXTRACT parse errors every call (the
shipped stacks' mistake, which local runs used to pass), the stacks' own judge config validates, and
`--hostile-reading judge-prose` makes a judge read whole fail. Real emulators over HTTP."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from emulator_api import JUDGE, example, ok, sample_response, validate_reward
from seed_inputs import base_inputs
from servers import ROOT, emulator
from tunifolk.job import bodies
from tunifolk.job.checks import check_inputs

pytestmark = pytest.mark.slow  # emulators

TAGGED = "Rate {{response}} for {{prompt}}. Answer with a number in [-1, 1] inside <answer></answer>."
PARSE = {"parseType": "REGEX_EXTRACT", "regexExtractExpression": "<answer>(.*?)</answer>"}


@pytest.fixture(scope="module")
def emu() -> Iterator[str]:
    with emulator("--step-seconds", "0.01", quiet=True) as url:
        yield url


@pytest.fixture(scope="module")
def prose() -> Iterator[str]:
    with emulator("--step-seconds", "0.01", "--hostile-reading", "judge-prose", quiet=True) as url:
        yield url


def judge(prompt: str, parse: dict[str, Any] | None = None, exact: str | None = None) -> dict[str, Any]:
    scorer: dict[str, Any] = {
        "autoraterConfig": {"autoraterModel": JUDGE, "samplingCount": 2},
        "autoraterPrompt": prompt,
    }
    if parse:
        scorer["autoraterResponseParseConfig"] = parse
    if exact:
        scorer["exactMatchScorer"] = {
            "expression": exact,
            "correctAnswerReward": 1.0,
            "wrongAnswerReward": -1.0,
        }
    else:
        scorer["parsedResponseConversionScorer"] = {}
    return {"rewardName": "poetic_quality", "autoraterScorer": scorer}


def answer(url: str, reward: dict[str, Any]) -> dict[str, Any]:
    body = {"example": example(), "sampleResponse": sample_response(), "singleRewardConfig": reward}
    return ok(validate_reward(url, body), "ValidateReinforcementTuningRewardResponse")


def finite(doc: dict[str, Any]) -> bool:
    value = doc.get("overallReward", 0.0)
    return not doc.get("errorStatus") and isinstance(value, int | float) and math.isfinite(value)


def test_a_judge_asked_for_tags_is_read_only_through_a_regex_extract_parse(emu: str) -> None:
    unparsed = answer(emu, judge(TAGGED))
    entry = unparsed["rewardInfoDetails"]["poetic_quality"]
    assert entry["reward"] == "NaN" and "Failed to convert" in entry["errorStatus"]["message"]
    assert finite(answer(emu, judge(TAGGED, PARSE)))
    assert finite(answer(emu, judge(TAGGED, PARSE, exact="Yes")))


def test_the_stacks_judge_validates_as_configured(emu: str) -> None:
    config = yaml.safe_load((ROOT / "Pulumi.local.yaml").read_text())["config"]
    spec = next(r["autorater"] for r in config["tunifolk:rewards"] if "autorater" in r)
    inputs = base_inputs()
    keys = {"model": "model", "prompt": "prompt", "sampling_count": "samplingCount", "parse": "parse"}
    inputs["rewards"][1]["autorater"] = {name: spec[key] for name, key in keys.items()}
    report = check_inputs(inputs)
    assert report.ok, report.failures
    configs = bodies.build_tuning_job(report.inputs)["reinforcementTuningSpec"]["compositeRewardConfig"]
    reward = configs["weightedRewardConfigs"][1]["rewardConfig"]
    reward["autoraterScorer"]["autoraterConfig"]["autoraterModel"] = JUDGE
    assert finite(answer(emu, reward))


def test_a_judge_that_writes_a_sentence_needs_a_parse(prose: str) -> None:
    bare = "Rate {{response}} from -1 to 1. Answer with the number only."
    assert not finite(answer(prose, judge(bare)))
    assert finite(
        answer(
            prose, judge(bare, {"parseType": "REGEX_EXTRACT", "regexExtractExpression": r"(-?\d+(?:\.\d+)?)"})
        )
    )
