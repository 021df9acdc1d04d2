"""The rollout ledger's record (scorer/ledger.py) as the real `python -m scorer` writes it to stdout."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from scorer import ledger
from servers import scorer

pytestmark = pytest.mark.slow  # a scorer process

MALZUMA = (Path(__file__).resolve().parent.parent / "data" / "samples" / "malzuma.txt").read_text(
    encoding="utf-8"
)
PROMPT = "Write a malzuma about the sea at Sidi Bou Said"


def body(text: str, step: int = 7) -> dict:
    return {
        "example": {
            "contents": [{"role": "user", "parts": [{"text": PROMPT}]}],
            "references": {"form": "malzuma", "script": "arabic", "theme": "sea"},
        },
        "response": {"role": "model", "parts": [{"text": "plan", "thought": True}, {"text": text}]},
        "metadata": {"step": step, "tuning_job_id": "4242"},
    }


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    out = tmp_path_factory.mktemp("ledger") / "scorer.stdout"
    with scorer(stdout=out) as url:
        yield url, out


def records(path: Path) -> list[dict]:
    return [r for r in map(ledger.parse_line, path.read_bytes().splitlines()) if r is not None]


def test_a_record_is_written_before_the_answer(served: tuple[str, Path]) -> None:
    url, out = served
    before = len(records(out))
    answer = requests.post(url, json=body(MALZUMA), timeout=10).json()
    got = records(out)  # read as soon as the answer is here: no waiting, no polling
    assert len(got) == before + 1
    rec = got[-1]
    assert set(rec) == set(ledger.FIELDS)
    assert rec[ledger.JOB_ID] == "4242" and rec[ledger.STEP] == 7
    assert rec[ledger.REWARD] == answer["reward"]
    aux = json.loads(answer["user_requested_aux_info"])
    assert rec[ledger.SUBSCORES] == aux["scores"] and rec[ledger.REASON] == aux["reason"]
    assert rec[ledger.RESPONSE] == MALZUMA  # the text the scorer read: no thought part
    assert rec[ledger.REFERENCES] == {"form": "malzuma", "script": "arabic"}
    assert rec[ledger.SCORER_VERSION] == ledger.version()
    assert rec[ledger.EXAMPLE_DIGEST] == ledger.example_digest(body(MALZUMA)["example"])


def test_the_line_is_cloud_logging_structured_and_holds_no_prompt(served: tuple[str, Path]) -> None:
    url, out = served
    requests.post(url, json=body("سطر واحد"), timeout=10)
    line = json.loads(out.read_bytes().splitlines()[-1])
    assert line["severity"] == "INFO" and line["message"] == ledger.MESSAGE
    assert line[ledger.LABELS_FIELD] == {ledger.LABEL_KEY: ledger.LABEL_VALUE}
    assert PROMPT not in out.read_text(encoding="utf-8")


def test_a_large_body_scored_in_the_worker_is_recorded(served: tuple[str, Path]) -> None:
    url, out = served
    text = MALZUMA + "\n" + "و" * 70_000  # over INLINE_BODY and over the record's cap
    requests.post(url, json=body(text, step=9), timeout=60)
    rec = records(out)[-1]
    assert rec[ledger.STEP] == 9 and rec[ledger.TRUNCATED] is True
    assert len(rec[ledger.RESPONSE]) == ledger.RESPONSE_CAP


def test_a_request_that_is_not_the_contract_is_not_recorded(served: tuple[str, Path]) -> None:
    url, out = served
    before = out.read_bytes()
    assert (
        requests.post(
            url, data=b"not json", headers={"content-type": "application/json"}, timeout=10
        ).status_code
        == 400
    )
    assert out.read_bytes() == before


def test_the_version_follows_the_sources(tmp_path: Path) -> None:
    (tmp_path / "score.py").write_text("A = 1\n")
    first = ledger.version(tmp_path)
    (tmp_path / "score.py").write_text("A = 2\n")
    assert ledger.version(tmp_path) != first
