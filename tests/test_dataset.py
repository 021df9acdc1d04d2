"""The tuning dataset tool: build determinism, split hygiene, limits, the line checker, the CLI,
the committed data/ and the scorer's sample poems."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from discovery import validate
from scorer.catalogue import FORMS, LANGUAGES, instruction
from scorer.score import score
from tunifolk.cli import main
from tunifolk.dataset.build import Dataset, Variation, build, dumps, jsonl, pick_validation_example, quotas
from tunifolk.dataset.check import check_line, check_stream, split_of
from tunifolk.dataset.spec import (
    FILE_BYTES_LIMIT,
    INPUT_TOKEN_LIMIT,
    MAX_DUPLICATE_SHARE,
    REFERENCE_KEYS,
    SCRIPTS,
    SYSTEM_INSTRUCTIONS,
    TRAIN_LIMIT,
    VALIDATION_LIMIT,
    estimate_tokens,
)
from tunifolk.dataset.themes import THEMES

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
SAMPLES = DATA / "samples"
HIGH = 0.8
"""A correct sample poem must score at least this against a matching dataset line."""


@pytest.fixture(scope="module")
def default() -> Dataset:
    return build()


def _lines(variations: list[Variation]) -> list[dict]:
    return [v.example() for v in variations]


def _user(example: dict) -> str:
    return example["contents"][-1]["parts"][0]["text"]


def _system(example: dict) -> str:
    return example["systemInstruction"]["parts"][0]["text"]


# --- build ----------------------------------------------------------------------------------------


def test_same_seed_same_bytes(tmp_path: Path) -> None:
    for name in ("a", "b"):
        assert main(["dataset", "build", "--out", str(tmp_path / name), "--seed", "7"]) == 0
    for split in ("train.jsonl", "validation.jsonl"):
        assert (tmp_path / "a" / split).read_bytes() == (tmp_path / "b" / split).read_bytes()


def test_another_seed_other_bytes() -> None:
    assert jsonl(build(1).train) != jsonl(build(2).train)


def test_default_counts_are_the_seeds_run(default: Dataset) -> None:
    assert len(default.train) == 843
    assert len(default.train) // 32 * 6 == 156
    assert len(default.validation) >= 50


def test_no_split_leakage_and_no_duplicates(default: Dataset) -> None:
    train, val = _lines(default.train), _lines(default.validation)
    train_users = [_user(e) for e in train]
    val_users = [_user(e) for e in val]
    assert len(set(train_users)) == len(train_users)
    assert len(set(val_users)) == len(val_users)
    assert not set(train_users) & set(val_users)
    pairs = {(_system(e), _user(e)) for e in train}
    assert not pairs & {(_system(e), _user(e)) for e in val}


def test_file_bytes_are_jsonl_utf8(default: Dataset) -> None:
    data = jsonl(default.validation)
    assert data.endswith(b"\n") and b"\r" not in data
    assert b"\\u06" not in data  # Arabic is written as UTF-8, not escaped
    lines = data.decode("utf-8").split("\n")[:-1]
    assert len(lines) == len(default.validation)
    assert list(json.loads(lines[0])) == ["systemInstruction", "contents", "references"]


def test_every_line_has_googles_shape_and_passes_the_checker(default: Dataset) -> None:
    for example in _lines(default.train + default.validation):
        validate("ReinforcementTuningExample", example)
        assert check_line(dumps(example)) == []


def test_prompt_and_references_come_from_one_catalogue_entry(default: Dataset) -> None:
    for v in default.train + default.validation:
        example = v.example()
        refs = example["references"]
        assert list(refs) == list(REFERENCE_KEYS)
        assert refs["form"] in FORMS
        assert _user(example) == instruction(
            refs["form"], refs["stanzas"], refs["refrain"], refs["script"], v.language, refs["theme"]
        )
        assert _system(example) == SYSTEM_INSTRUCTIONS[v.language]


def test_variety_covers_forms_scripts_languages_and_refrain(default: Dataset) -> None:
    every = default.train + default.validation
    assert {v.form for v in default.train} == set(FORMS)
    assert {v.form for v in default.validation} == set(FORMS)
    assert {v.script for v in every} == set(SCRIPTS)
    assert {v.language for v in every} == set(LANGUAGES)
    assert {v.refrain for v in every if v.form == "malzuma"} == {"yes", "no"}
    assert all(v.refrain == "no" for v in every if FORMS[v.form].refrain == "none")
    assert len({v.theme for v in every}) == len(THEMES)
    for form, spec in FORMS.items():
        counts = {v.stanzas for v in every if v.form == form}
        assert counts <= set(range(spec.stanzas_range[0], spec.stanzas_range[1] + 1))
    malzuma = sum(v.form == "malzuma" for v in default.train)
    assert malzuma > max(sum(v.form == f for v in default.train) for f in FORMS if f != "malzuma")


def test_themes_are_distinct_in_every_language() -> None:
    assert len({t.id for t in THEMES}) == len(THEMES) >= 24
    for language in LANGUAGES:
        texts = [t.text(language) for t in THEMES]
        assert len(set(texts)) == len(texts) and all(texts)
    assert set(SYSTEM_INSTRUCTIONS) == set(LANGUAGES)


@pytest.mark.slow  # 15 builds of up to 380 lines: 2-3 s (the fixed seeds above run in make test-fast)
@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    train=st.integers(1, 300),
    validation=st.integers(1, 80),
)
def test_any_seed_and_size_exact_counts_no_leakage(seed: int, train: int, validation: int) -> None:
    built = build(seed, train, validation)
    assert (len(built.train), len(built.validation)) == (train, validation)
    users = [v.user_text() for v in built.train + built.validation]
    assert len(set(users)) == len(users)


def test_limits_are_the_services() -> None:
    built = build(3, TRAIN_LIMIT, VALIDATION_LIMIT)
    assert (len(built.train), len(built.validation)) == (5000, 500)
    assert len({v.user_text() for v in built.train + built.validation}) == 5500
    for bad in ((5001, 64), (843, 501), (0, 64), (843, 0)):
        with pytest.raises(ValueError, match="limit"):
            build(0, *bad)


def test_quotas_weight_malzuma_and_respect_capacity() -> None:
    assert quotas(9, dict.fromkeys(FORMS, 100)) == {f: 3 if f == "malzuma" else 1 for f in FORMS}
    capped = quotas(20, {"malzuma": 2, "gsim": 100})
    assert capped == {"malzuma": 2, "gsim": 18}
    with pytest.raises(ValueError):
        quotas(5, {"malzuma": 2, "gsim": 2})


@pytest.mark.parametrize(
    ("argv", "names"),
    [
        (["--train", "5001"], "5,000"),
        (["--validation", "501"], "500"),
        (["--train", "0"], "5,000"),
        (["--train", "many"], "whole number"),
    ],
)
def test_cli_counts_beyond_the_limits_are_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], names: str
) -> None:
    assert main(["dataset", "build", "--out", str(tmp_path), *argv]) == 2
    assert names in capsys.readouterr().err
    assert not (tmp_path / "train.jsonl").exists()


# --- check ----------------------------------------------------------------------------------------

GOOD = dumps(build(0, 1, 1).train[0].example())


def _edit(change) -> str:
    example = json.loads(GOOD)
    change(example)
    return json.dumps(example, ensure_ascii=False)


BAD_LINES: list[tuple[str, str]] = [
    ("not JSON", "not valid JSON"),
    ("", "empty line"),
    ("[1, 2]", "not a JSON object"),
    (_edit(lambda e: e.update(toolz=[])), "unknown key 'toolz'"),
    (_edit(lambda e: e.pop("contents")), "contents: missing"),
    (_edit(lambda e: e.update(contents=[])), "contents: empty"),
    (_edit(lambda e: e.update(contents={"role": "user"})), "contents: must be an array"),
    (_edit(lambda e: e["contents"][0]["parts"][0].update(text="  ")), "empty user turn"),
    (_edit(lambda e: e["contents"][0].update(parts=[])), "contents[0].parts: must be a non-empty array"),
    (_edit(lambda e: e["contents"][0].update(role="model")), "must end on the user turn"),
    (_edit(lambda e: e["contents"][0].update(role="assistant")), "'assistant' is not 'user' or 'model'"),
    (_edit(lambda e: e["contents"][0]["parts"][0].update(thought=True)), "exactly one of text, fileData"),
    (
        _edit(lambda e: e["contents"][0]["parts"][0].update(text=5)),
        "contents[0].parts[0].text: must be a string",
    ),
    (_edit(lambda e: e["contents"][0].update(extra=1)), "contents[0]: unknown key 'extra'"),
    (
        _edit(
            lambda e: e["systemInstruction"]["parts"].append({"fileData": {"mimeType": "a", "fileUri": "b"}})
        ),
        "systemInstruction.parts[1]: a part holds exactly one of text",
    ),
    (_edit(lambda e: e.pop("references")), "references: missing"),
    (_edit(lambda e: e.update(references=["malzuma"])), "references: must be an object"),
    (_edit(lambda e: e["references"].update(stanzas=5)), "references.stanzas: must be a string"),
    (_edit(lambda e: e["references"].update(rhyme="a")), "references: unknown key 'rhyme'"),
    (_edit(lambda e: e["references"].pop("form")), "references.form: missing"),
    (_edit(lambda e: e["references"].update(form="sonnet")), "unknown form 'sonnet'"),
    (_edit(lambda e: e["references"].update(form="malzouma")), "write the form id 'malzuma'"),
    (_edit(lambda e: e["references"].update(stanzas="five")), "'five' is not a whole number"),
    (_edit(lambda e: e["references"].update(form="malzuma", stanzas="40")), "outside malzuma's range 4–6"),
    (_edit(lambda e: e["references"].update(refrain="maybe")), "is not 'yes' or 'no'"),
    (
        _edit(lambda e: e["references"].update(form="qasida", stanzas="10", refrain="yes")),
        "qasida has no refrain",
    ),
    (_edit(lambda e: e["references"].update(script="latin")), "'latin' is not 'arabic' or 'arabizi'"),
    (_edit(lambda e: e["contents"][0]["parts"][0].update(text="ب" * 40_000)), "input too long"),
    ("\ufeff" + GOOD, "not valid JSON"),
]


def test_good_line_is_fine() -> None:
    assert check_line(GOOD) == []
    assert check_line(GOOD.encode()) == []


@pytest.mark.parametrize(("line", "expected"), BAD_LINES, ids=[e for _, e in BAD_LINES])
def test_each_bad_line_is_named(line: str, expected: str) -> None:
    problems = check_line(line)
    assert any(expected in p for p in problems), problems


def test_not_utf8_is_named() -> None:
    assert "not UTF-8" in check_line(b'{"contents": "\xff"}')[0]


def test_check_reports_file_and_line_numbers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [GOOD] + [line for line, _ in BAD_LINES] + [GOOD]
    path = tmp_path / "train.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["dataset", "check", str(path)]) == 1
    out = capsys.readouterr().out
    for number, (_, expected) in enumerate(BAD_LINES, start=2):
        assert any(row.startswith(f"{path}:{number}: ") and expected in row for row in out.splitlines()), (
            number,
            expected,
        )
    assert f"{path}:1: " not in out
    last = [row for row in out.splitlines() if row.startswith(f"{path}:{len(lines)}: ")]
    assert last == [f"{path}:{len(lines)}: warning: the same prompt as line 1"]  # a repeat, not a problem
    assert "2 examples" in out  # the statistics count the good lines only
    assert "1 duplicate prompts (lines" in out


def test_repeated_prompts_warn_then_fail_past_their_share(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A few repeats are warnings (exit 0); more than MAX_DUPLICATE_SHARE of the file is a problem."""
    lines = jsonl(build(0, 40, 1).train).splitlines(keepends=True)
    path = tmp_path / "train.jsonl"
    path.write_bytes(b"".join([*lines, lines[0]]))  # 1 of 41: within the share
    assert main(["dataset", "check", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"{path}:41: warning: the same prompt as line 1" in out and "(1 warning: repeated prompts)" in out
    allowed = int(MAX_DUPLICATE_SHARE * 40)
    path.write_bytes(b"".join([*lines, *lines[: allowed + 1]]))  # past the share
    assert main(["dataset", "check", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}: {allowed + 1} of {41 + allowed} prompts repeat an earlier line, more than 5%" in out


def test_check_counts_the_split_limits(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    built = build(0, 501, 1)
    path = tmp_path / "validation.jsonl"
    path.write_bytes(jsonl(built.train))
    assert main(["dataset", "check", str(path)]) == 1
    assert f"{path}:501: more than 500 examples, the service's validation limit" in capsys.readouterr().out
    assert main(["dataset", "check", "--split", "train", str(path)]) == 0
    assert split_of("data/val.jsonl") == "validation"
    assert split_of("data/train.jsonl") == "train"


def test_check_file_size_limit() -> None:
    report = check_stream([GOOD.encode() + b"\n"], "train", size=FILE_BYTES_LIMIT + 1)
    assert report.problems == [(None, f"file is {FILE_BYTES_LIMIT + 1:,} bytes, over the 1 GB limit")]


def test_check_statistics_and_leakage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    built = build(0, 30, 10)
    train, val = tmp_path / "train.jsonl", tmp_path / "validation.jsonl"
    train.write_bytes(jsonl(built.train))
    val.write_bytes(jsonl(built.validation + built.train[:2]))
    assert main(["dataset", "check", str(train), str(val)]) == 0
    out = capsys.readouterr().out
    assert "prompts shared between files: 2" in out
    assert f"{train}: 30 examples" in out and f"{val}: 12 examples" in out
    report = check_stream(train.read_bytes().splitlines(keepends=True), "train")
    stats = report.stats
    assert sum(stats.forms.values()) == sum(stats.scripts.values()) == sum(stats.languages.values()) == 30
    assert stats.languages["other"] == 0
    assert 0 < min(stats.prompt_chars) <= max(stats.prompt_chars) < 2000
    assert 0 < stats.max_tokens < INPUT_TOKEN_LIMIT


def test_check_empty_and_missing_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "train.jsonl"
    empty.write_bytes(b"")
    assert main(["dataset", "check", str(empty)]) == 1
    assert f"{empty}: no examples" in capsys.readouterr().out
    assert main(["dataset", "check", str(tmp_path / "absent.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_token_estimate_is_conservative() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcdef") == 2
    assert estimate_tokens("ملزومة") == 6  # 12 UTF-8 bytes / 2
    assert estimate_tokens("é") == 1


# --- CLI ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("argv", [[], ["dataset"], ["dataset", "check"], ["nope"], ["dataset", "build"]])
def test_usage_errors_exit_2(argv: list[str]) -> None:
    assert main(argv) == 2


def test_help_helps(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (
        ["--help"],
        ["dataset", "--help"],
        ["dataset", "build", "--help"],
        ["dataset", "check", "--help"],
    ):
        assert main(argv) == 0
    out = capsys.readouterr().out
    assert "dataset" in out and "--seed" in out and "5,000" in out and "FILE:LINE" in out


def test_python_dash_m_tunifolk(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "tunifolk", "dataset", "build", "--out", str(tmp_path), "--train", "5"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert len((tmp_path / "train.jsonl").read_text(encoding="utf-8").splitlines()) == 5


# --- data/ and the sample poems -------------------------------------------------------------------


def test_committed_data_is_what_the_documented_command_builds(tmp_path: Path) -> None:
    readme = (DATA / "README.md").read_text(encoding="utf-8")
    command = "python -m tunifolk dataset build --out data --seed 0 --sample data/samples/malzuma.txt"
    assert command in readme
    argv = ["dataset", "build", "--out", str(tmp_path), "--seed", "0"]
    if (SAMPLES / "malzuma.txt").exists():
        argv += ["--sample", str(SAMPLES / "malzuma.txt")]
    assert main(argv) == 0
    for name in ("train.jsonl", "validation.jsonl", "validation_example.json"):
        if (tmp_path / name).exists():
            assert (tmp_path / name).read_bytes() == (DATA / name).read_bytes(), name


def test_committed_data_passes_check(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dataset", "check", str(DATA / "train.jsonl"), str(DATA / "validation.jsonl")]) == 0
    assert "prompts shared between files: 0" in capsys.readouterr().out


@pytest.mark.parametrize("form", list(FORMS))
def test_every_sample_poem_scores_high(form: str, default: Dataset) -> None:
    poem = (SAMPLES / f"{form}.txt").read_text(encoding="utf-8")  # committed: missing is a failure
    _, reward = pick_validation_example(default.validation, form, poem)
    assert reward >= HIGH
    assert score(poem, {"form": form}).reward >= HIGH


def test_validation_example_pairs_a_real_line_with_the_malzuma_sample() -> None:
    path = DATA / "validation_example.json"
    body = json.loads(path.read_text(encoding="utf-8"))
    assert list(body) == ["example", "sample_response"]
    validate("ReinforcementTuningExample", body["example"])
    validate("Content", body["sample_response"])
    assert body["sample_response"]["parts"][0]["text"] == (SAMPLES / "malzuma.txt").read_text(
        encoding="utf-8"
    )
    validation_lines = (DATA / "validation.jsonl").read_text(encoding="utf-8").splitlines()
    assert dumps(body["example"]) in validation_lines
    assert body["example"]["references"]["form"] == "malzuma"
    assert score(body["sample_response"], body["example"]["references"]).reward >= HIGH


def test_what_google_allows_in_a_line_passes() -> None:
    """Tools and a file part's display name are Google's fields (providers/job/shapes.py)."""
    line = _edit(lambda e: e.update(tools=[{"googleSearch": {}}]))
    assert check_line(line) == []
    part = {"fileData": {"mimeType": "image/png", "fileUri": "gs://b/x.png", "displayName": "x"}}
    assert check_line(_edit(lambda e: e["contents"][0]["parts"].append(part))) == []
