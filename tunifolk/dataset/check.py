"""The tuning dataset's checker, pure: one line against Google's ``Example`` shape and the scorer's
catalogue, a whole file (limits, duplicates, statistics), and the human summary.

A bad line found by Vertex after upload costs a failed job, so this is the checker
``tunifolk dataset check`` runs and the builder (``tunifolk.dataset.build``) asserts every line
against. Nothing here does I/O: callers hand in the lines.
"""

from __future__ import annotations

import json
import statistics as pystats
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from scorer.catalogue import FORMS, FormSpec, lookup
from tunifolk.dataset.spec import (
    FILE_BYTES_LIMIT,
    INPUT_TOKEN_LIMIT,
    MAX_DUPLICATE_SHARE,
    REFERENCE_KEYS,
    SCRIPTS,
    SYSTEM_INSTRUCTIONS,
    TRAIN_LIMIT,
    VALIDATION_LIMIT,
    example_tokens,
)
from tunifolk.job import shapes

# --- checking -------------------------------------------------------------------------------------

# Google's shapes (tunifolk/job/shapes.py) name the keys; the rules below are the dataset's own,
# stricter ones (a prompt ending on the user's turn, text or file parts, known references).
_EXAMPLE_KEYS = tuple(shapes.EXAMPLE)
_CONTENT_KEYS = tuple(shapes.CONTENT)
_FILE_DATA_KEYS = tuple(shapes.FILE_DATA)
_ROLES = ("user", "model")


def _type(value: Any) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "number"
    )


def check_line(line: str | bytes) -> list[str]:
    """Problems with one JSONL line (empty when it is fine), each naming the JSON path."""
    return examine(line)[1]


def examine(line: str | bytes) -> tuple[dict[str, Any] | None, list[str]]:
    """The parsed example (None if the line is not a JSON object) and the line's problems."""
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError as e:
            return None, [f"not UTF-8 ({e.reason} at byte {e.start})"]
    if not line.strip():
        return None, ["empty line (JSONL wants one example on every line)"]
    try:
        example = json.loads(line)
    except json.JSONDecodeError as e:
        return None, [f"not valid JSON: {e.msg} (column {e.colno})"]
    if not isinstance(example, dict):
        return None, [f"not a JSON object (got {_type(example)}): a line is one ReinforcementTuningExample"]
    problems = [
        f"unknown key {key!r} (a ReinforcementTuningExample line has {', '.join(_EXAMPLE_KEYS)})"
        for key in example
        if key not in _EXAMPLE_KEYS
    ]
    if "systemInstruction" in example:
        problems += _check_content(example["systemInstruction"], "systemInstruction", system=True)
    problems += _check_contents(example.get("contents"))
    problems += _check_references(example.get("references"))
    if not problems:
        tokens = example_tokens(example)
        if tokens > INPUT_TOKEN_LIMIT:
            problems.append(
                f"input too long: about {tokens:,} tokens (estimate), limit {INPUT_TOKEN_LIMIT:,}"
            )
    return example, problems


def _check_contents(contents: Any) -> list[str]:
    if contents is None:
        return ["contents: missing (the prompt: a list of turns ending on the user's)"]
    if not isinstance(contents, list):
        return [f"contents: must be an array of Content, got {_type(contents)}"]
    if not contents:
        return ["contents: empty (needs at least the user turn)"]
    problems: list[str] = []
    for i, content in enumerate(contents):
        problems += _check_content(content, f"contents[{i}]", system=False)
    if problems:
        return problems
    last = contents[-1]
    if last.get("role", "user") != "user":
        return [
            f"contents[{len(contents) - 1}]: the last turn is {last['role']!r}; "
            "the prompt must end on the user turn"
        ]
    if not any(isinstance(p.get("text"), str) and p["text"].strip() for p in last["parts"]):
        return [f"contents[{len(contents) - 1}]: empty user turn (no text)"]
    return []


def _check_content(content: Any, path: str, *, system: bool) -> list[str]:
    """A ``Content``: optional role, a non-empty ``parts`` list; text-only for the system turn."""
    if not isinstance(content, dict):
        return [f"{path}: must be an object (Content), got {_type(content)}"]
    problems = [
        f"{path}: unknown key {key!r} (Content has {', '.join(_CONTENT_KEYS)})"
        for key in content
        if key not in _CONTENT_KEYS
    ]
    role = content.get("role")
    if role is not None and not isinstance(role, str):
        problems.append(f"{path}.role: must be a string, got {_type(role)}")
    elif role is not None and not system and role not in _ROLES:
        problems.append(f"{path}.role: {role!r} is not 'user' or 'model'")
    parts = content.get("parts")
    if not isinstance(parts, list) or not parts:
        got = "missing" if parts is None else "empty" if parts == [] else f"a {_type(parts)}"
        return [*problems, f"{path}.parts: must be a non-empty array of Part, got {got}"]
    for j, part in enumerate(parts):
        problems += _check_part(part, f"{path}.parts[{j}]", system=system)
    return problems


def _check_part(part: Any, path: str, *, system: bool) -> list[str]:
    if not isinstance(part, dict):
        return [f"{path}: must be an object (Part), got {_type(part)}"]
    allowed = ("text",) if system else ("text", "fileData")
    if set(part) - set(allowed) or len(part) != 1:
        return [f"{path}: a part holds exactly one of {', '.join(allowed)}, got {sorted(part) or 'nothing'}"]
    if "text" in part:
        return (
            []
            if isinstance(part["text"], str)
            else [f"{path}.text: must be a string, got {_type(part['text'])}"]
        )
    data = part["fileData"]
    if not (
        isinstance(data, dict)
        and {"mimeType", "fileUri"} <= set(data) <= set(_FILE_DATA_KEYS)
        and all(isinstance(v, str) and v for v in data.values())
    ):
        return [f"{path}.fileData: must be {{mimeType, fileUri, displayName?}} strings"]
    return []


def _check_references(refs: Any) -> list[str]:
    """``references``: string → string with the keys of docs/dataset.md, checked against the
    catalogue entry so a line can never ask for what the scorer does not expect."""
    if refs is None:
        return ["references: missing (needs at least 'form')"]
    if not isinstance(refs, dict):
        return [f"references: must be an object of strings, got {_type(refs)}"]
    problems = [
        f"references.{key}: must be a string, got {_type(value)} {json.dumps(value, ensure_ascii=False)[:40]}"
        for key, value in refs.items()
        if not isinstance(value, str)
    ]
    problems += [
        f"references: unknown key {key!r} (docs/dataset.md keys: {', '.join(REFERENCE_KEYS)})"
        for key in refs
        if key not in REFERENCE_KEYS
    ]
    form = refs.get("form")
    if form is None:
        return [*problems, "references.form: missing (a form id of the scorer's catalogue)"]
    if not isinstance(form, str):
        return problems
    spec = FORMS.get(form)
    if spec is None:
        alias = lookup(form)
        if alias is not None:
            return [*problems, f"references.form: {form!r} is an alias; write the form id {alias.id!r}"]
        return [*problems, f"references.form: unknown form {form[:40]!r} (known: {', '.join(FORMS)})"]
    return problems + _check_form_refs(spec, refs)


def _check_form_refs(spec: FormSpec, refs: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    stanzas = refs.get("stanzas")
    if isinstance(stanzas, str):
        lo, hi = spec.stanzas_range
        if not (stanzas.isascii() and stanzas.isdigit()):
            problems.append(f"references.stanzas: {stanzas[:20]!r} is not a whole number")
        elif not lo <= int(stanzas) <= hi:
            problems.append(f"references.stanzas: {int(stanzas)} is outside {spec.id}'s range {lo}–{hi}")
    refrain = refs.get("refrain")
    if isinstance(refrain, str):
        if refrain not in ("yes", "no"):
            problems.append(f"references.refrain: {refrain[:20]!r} is not 'yes' or 'no'")
        elif refrain == "yes" and spec.refrain == "none":
            problems.append(f"references.refrain: {spec.id} has no refrain, so 'yes' cannot be scored")
    script = refs.get("script")
    if isinstance(script, str) and script not in SCRIPTS:
        problems.append(f"references.script: {script[:20]!r} is not 'arabic' or 'arabizi'")
    return problems


# --- whole files ----------------------------------------------------------------------------------


@dataclass(slots=True)
class Stats:
    """Summary figures of one file (or several merged)."""

    examples: int = 0
    forms: Counter[str] = field(default_factory=Counter)
    scripts: Counter[str] = field(default_factory=Counter)
    languages: Counter[str] = field(default_factory=Counter)
    prompt_chars: list[int] = field(default_factory=list)
    max_tokens: int = 0
    duplicates: list[tuple[int, int]] = field(default_factory=list)
    """(line, first line) pairs: a prompt (system instruction + turns) seen before in the file."""
    prompts: dict[str, int] = field(default_factory=dict)
    """prompt key → first line number; used to find prompts shared between files."""
    bytes: int = 0


@dataclass(slots=True)
class FileReport:
    problems: list[tuple[int | None, str]]
    """(line number or None for the whole file, message)."""
    stats: Stats
    warnings: list[tuple[int | None, str]] = field(default_factory=list)
    """Like problems, but the file is still usable: a prompt repeated within the allowed share."""


def split_of(name: str) -> str:
    """``validation`` when the file name says so (``val…``, ``…valid…``, ``…_val…``, ``…-val…``),
    else ``train``: it decides which example limit applies."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1].lower()
    named = base.startswith("val") or any(mark in base for mark in ("valid", "_val", "-val"))
    return "validation" if named else "train"


def prompt_key(example: dict[str, Any]) -> str:
    """What makes two prompts the same: the system instruction and every turn (not references)."""
    return json.dumps(
        [example.get("systemInstruction"), example.get("contents")], ensure_ascii=False, sort_keys=True
    )


def _language(example: dict[str, Any]) -> str:
    text = "".join(p.get("text", "") for p in (example.get("systemInstruction") or {}).get("parts", []))
    return next((lang for lang, s in SYSTEM_INSTRUCTIONS.items() if s == text), "other")


def _user_chars(example: dict[str, Any]) -> int:
    return sum(
        len(p.get("text", ""))
        for c in example["contents"]
        if c.get("role", "user") == "user"
        for p in c["parts"]
    )


def check_stream(lines: Iterable[bytes], split: str = "train", size: int = 0) -> FileReport:
    """Check every line of one JSONL file, and count. ``split`` picks the example limit;
    ``size`` (bytes) is checked against the file limit."""
    limit = VALIDATION_LIMIT if split == "validation" else TRAIN_LIMIT
    report = FileReport([], Stats(bytes=size))
    if size > FILE_BYTES_LIMIT:
        report.problems.append((None, f"file is {size:,} bytes, over the 1 GB limit"))
    for number, raw in _numbered(lines):
        example, problems = examine(raw)
        report.problems += [(number, message) for message in problems]
        if number == limit + 1:
            report.problems.append((number, f"more than {limit:,} examples, the service's {split} limit"))
        if example is not None and not problems:
            _count(report.stats, example, number)
    if report.stats.examples == 0 and not report.problems:
        report.problems.append((None, "no examples"))
    _judge_duplicates(report)
    return report


def _judge_duplicates(report: FileReport) -> None:
    """Each repeated prompt is a warning; past `MAX_DUPLICATE_SHARE` of the examples, a problem."""
    stats = report.stats
    report.warnings += [
        (line, f"warning: the same prompt as line {first}") for line, first in stats.duplicates
    ]
    if stats.duplicates and len(stats.duplicates) > MAX_DUPLICATE_SHARE * stats.examples:
        report.problems.append(
            (
                None,
                f"{len(stats.duplicates)} of {stats.examples} prompts repeat an earlier line, more than "
                f"{MAX_DUPLICATE_SHARE:.0%}: remove the repeats (each one weighs double in training)",
            )
        )


def _numbered(lines: Iterable[bytes]) -> Iterator[tuple[int, bytes]]:
    """Lines numbered from 1; a final newline does not make an extra empty line."""
    for number, raw in enumerate(lines, 1):
        yield number, raw[:-1] if raw.endswith(b"\n") else raw


def _count(stats: Stats, example: dict[str, Any], number: int) -> None:
    refs = example["references"]
    stats.examples += 1
    stats.forms[refs["form"]] += 1
    stats.scripts[refs.get("script", "unstated")] += 1
    stats.languages[_language(example)] += 1
    stats.prompt_chars.append(_user_chars(example))
    stats.max_tokens = max(stats.max_tokens, example_tokens(example))
    key = prompt_key(example)
    if key in stats.prompts:
        stats.duplicates.append((number, stats.prompts[key]))
    else:
        stats.prompts[key] = number


def shared_prompts(reports: dict[str, FileReport]) -> list[tuple[str, int, str, int]]:
    """Prompts found in more than one file: (file, line, earlier file, its line) — split leakage."""
    first: dict[str, tuple[str, int]] = {}
    out = []
    for name, report in reports.items():
        for key, line in report.stats.prompts.items():
            if key in first and first[key][0] != name:
                out.append((name, line, *first[key]))
            first.setdefault(key, (name, line))
    return out


def format_stats(name: str, stats: Stats) -> list[str]:
    """Human summary lines for one file."""
    if not stats.examples:
        return [f"{name}: 0 valid examples"]
    chars = stats.prompt_chars

    def counts(c: Counter[str]) -> str:
        return ", ".join(f"{k} {n}" for k, n in sorted(c.items(), key=lambda kv: (-kv[1], kv[0])))

    dup = f"{len(stats.duplicates)} duplicate prompts" + (
        " (lines "
        + ", ".join(f"{a}={b}" for a, b in stats.duplicates[:5])
        + ("…" if len(stats.duplicates) > 5 else "")
        + ")"
        if stats.duplicates
        else ""
    )
    return [
        f"{name}: {stats.examples} example{'s' * (stats.examples != 1)}, {stats.bytes:,} bytes",
        f"  forms: {counts(stats.forms)}",
        f"  scripts: {counts(stats.scripts)}",
        f"  instruction languages: {counts(stats.languages)}",
        f"  prompt length (user text, characters): min {min(chars)}, "
        f"median {int(pystats.median(chars))}, max {max(chars)}",
        f"  input tokens (conservative estimate): max {stats.max_tokens:,} of {INPUT_TOKEN_LIMIT:,}",
        f"  {dup}",
    ]
