"""The tuning dataset, pure: build lines from the scorer's catalogue, check lines, count them.

Prompts and reward come from one specification: every line's user turn is
``scorer.catalogue.instruction(...)`` and its ``references`` carry the very same parameters, which
the scorer reads back (docs/dataset.md). A bad line found by Vertex after upload costs a failed
job, so the checker here is the one ``tunifolk dataset check`` runs and the builder refuses to
write any line it would reject.

Nothing here does I/O except reading a file to check it; builds are deterministic:
``random.Random(seed)`` only, fixed key order, ``ensure_ascii=False``, ``\\n`` line endings.
"""

from __future__ import annotations

import json
import math
import random
import statistics as pystats
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from scorer.catalogue import FORMS, LANGUAGES, FormSpec, instruction, lookup
from tunifolk.dataset.themes import THEMES
from tunifolk.job import shapes

# --- service limits (docs/vertex.md, "Limits") -------------------------------------------------------

TRAIN_LIMIT = 5_000
VALIDATION_LIMIT = 500
INPUT_TOKEN_LIMIT = 32_768
FILE_BYTES_LIMIT = 1_000_000_000
"""1 GB read as 10⁹ bytes, the stricter reading of the documented limit."""

# --- defaults: the seed's run (843 // 32 × 6 = 156 steps) -----------------------------------------

DEFAULT_SEED = 0
DEFAULT_TRAIN = 843
DEFAULT_VALIDATION = 64

REFERENCE_KEYS = ("form", "stanzas", "refrain", "script", "theme")
SCRIPTS = ("arabic", "arabizi")
FORM_WEIGHTS: dict[str, int] = {"malzuma": 3}
"""The malzuma is the run's main form: three shares of the dataset; every other form gets one."""

SYSTEM_INSTRUCTIONS: dict[str, str] = {
    "en": (
        "You are a Tunisian folk poet. You know the malzuma, the gsim and the other forms of Tunisian "
        "popular poetry, and you keep a form exactly: its rhymes, its number of stanzas and its refrain. "
        "Answer with the poem only."
    ),
    "fr": (
        "Tu es un poète populaire tunisien. Tu connais la malzouma, le gsim et les autres formes de la "
        "poésie populaire tunisienne, et tu respectes une forme exactement : ses rimes, son nombre de "
        "strophes et son refrain. Réponds seulement par le poème."
    ),
    "msa": (
        "أنت شاعر شعبي تونسي. تعرف الملزومة والقسيم وسائر أشكال الشعر الشعبي التونسي، وتلتزم بالشكل "
        "بدقة: قوافيه وعدد مقاطعه ولازمته. أجب بالقصيدة وحدها."
    ),
    "derja": (
        "إنت شاعر شعبي تونسي. تعرف الملزومة والڨسيم وأشكال الشعر الشعبي التونسي الكل، وتحترم الشكل كيف ما "
        "هو: قوافيه وعدد أعرافه والردّة متاعو. جاوب بالشعر برك."
    ),
}
"""One system instruction per instruction language; the language of a line is read back from it."""


# --- building -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Variation:
    """Everything that shapes one prompt; the references are a projection of it."""

    form: str
    stanzas: int
    refrain: str  # "yes" | "no"
    script: str  # "arabic" | "arabizi"
    language: str  # one of scorer.catalogue.LANGUAGES
    theme: str  # a Theme id

    def theme_text(self) -> str:
        return next(t for t in THEMES if t.id == self.theme).text(self.language)

    def user_text(self) -> str:
        return instruction(
            self.form, self.stanzas, self.refrain, self.script, self.language, self.theme_text()
        )

    def references(self) -> dict[str, str]:
        return {
            "form": self.form,
            "stanzas": str(self.stanzas),
            "refrain": self.refrain,
            "script": self.script,
            "theme": self.theme_text(),
        }

    def example(self) -> dict[str, Any]:
        """The dataset line (docs/dataset.md), keys in a fixed order."""
        return {
            "systemInstruction": {"parts": [{"text": SYSTEM_INSTRUCTIONS[self.language]}]},
            "contents": [{"role": "user", "parts": [{"text": self.user_text()}]}],
            "references": self.references(),
        }


@dataclass(slots=True)
class Dataset:
    """Both splits, as variations (what was asked) in file order."""

    train: list[Variation]
    validation: list[Variation]


def refrain_options(spec: FormSpec) -> tuple[str, ...]:
    """A form with an optional refrain is asked both ways; a form without one never gets one."""
    return ("yes", "no") if spec.refrain == "optional" else ("no",)


def variations(form: str) -> list[Variation]:
    """Every distinct prompt the catalogue allows for ``form``, in a fixed order."""
    spec = FORMS[form]
    lo, hi = spec.stanzas_range
    return [
        Variation(form, n, refrain, script, language, theme.id)
        for n in range(lo, hi + 1)
        for refrain in refrain_options(spec)
        for script in SCRIPTS
        for language in LANGUAGES
        for theme in THEMES
    ]


def quotas(total: int, capacity: dict[str, int]) -> dict[str, int]:
    """Split ``total`` over the forms by ``FORM_WEIGHTS`` (largest remainder, ties in catalogue
    order), never above a form's ``capacity``; what a full form cannot take goes to the others."""
    out = dict.fromkeys(capacity, 0)
    left = total
    while left > 0:
        open_forms = [f for f in capacity if out[f] < capacity[f]]
        if not open_forms:
            raise ValueError(f"the catalogue allows only {sum(capacity.values())} distinct prompts")
        weight = {f: FORM_WEIGHTS.get(f, 1) for f in open_forms}
        share = {f: left * weight[f] / sum(weight.values()) for f in open_forms}
        give = {f: math.floor(share[f]) for f in open_forms}
        rest = left - sum(give.values())
        for f in sorted(open_forms, key=lambda f: -(share[f] - give[f]))[:rest]:
            give[f] += 1
        for f in open_forms:
            take = min(give[f], capacity[f] - out[f])
            out[f] += take
            left -= take
    return out


def _spread(items: list[Variation], key: Callable[[Variation], object]) -> list[Variation]:
    """Reorder (stably) so that every value of ``key`` comes up once before any comes up twice:
    any prefix of the result is then balanced over that key."""
    seen: Counter[object] = Counter()
    ranked = []
    for item in items:
        ranked.append((seen[key(item)], item))
        seen[key(item)] += 1
    return [item for _, item in sorted(ranked, key=lambda pair: pair[0])]


def _ordered(form: str, rng: random.Random) -> list[Variation]:
    """The form's variations in the order the splits draw them: shuffled, then balanced over
    theme, over stanza count and refrain, and finally (primary) over script × language; the
    form's canonical asks (default stanza count, each refrain option, each script) come first so
    the validation split always holds a line that the scorer's sample poem matches."""
    items = variations(form)
    rng.shuffle(items)
    items = _spread(items, lambda v: v.theme)
    items = _spread(items, lambda v: (v.stanzas, v.refrain))
    items = _spread(items, lambda v: (v.script, v.language))
    spec = FORMS[form]
    canonical: list[Variation] = []
    for refrain in refrain_options(spec):
        for script in SCRIPTS:
            canonical.append(
                next(v for v in items if (v.stanzas, v.refrain, v.script) == (spec.stanzas, refrain, script))
            )
    return canonical + [v for v in items if v not in canonical]


def build(
    seed: int = DEFAULT_SEED, train: int = DEFAULT_TRAIN, validation: int = DEFAULT_VALIDATION
) -> Dataset:
    """Both splits for ``seed``: exact counts, no prompt twice, no prompt in both splits.

    Raises ``ValueError`` for counts outside the service limits (the CLI turns that into a usage
    error) and ``AssertionError`` if a built line fails the checker (a bug, never shipped).
    """
    _check_counts(train, validation)
    rng = random.Random(seed)
    ordered = {form: _ordered(form, rng) for form in FORMS}
    capacity = {form: len(v) for form, v in ordered.items()}
    val_q = quotas(validation, capacity)
    train_q = quotas(train, {f: capacity[f] - val_q[f] for f in FORMS})
    val: list[Variation] = []
    tr: list[Variation] = []
    for form in FORMS:
        val += ordered[form][: val_q[form]]
        tr += ordered[form][val_q[form] : val_q[form] + train_q[form]]
    rng.shuffle(val)
    rng.shuffle(tr)
    dataset = Dataset(tr, val)
    _assert_clean(dataset)
    return dataset


def _check_counts(train: int, validation: int) -> None:
    if not 1 <= train <= TRAIN_LIMIT:
        raise ValueError(f"--train must be 1 to {TRAIN_LIMIT:,} (the service's training limit), got {train}")
    if not 1 <= validation <= VALIDATION_LIMIT:
        raise ValueError(
            f"--validation must be 1 to {VALIDATION_LIMIT:,} (the service's validation limit), "
            f"got {validation}"
        )


def _assert_clean(dataset: Dataset) -> None:
    """Every line passes the checker, and no user text or prompt appears twice anywhere."""
    seen: set[str] = set()
    for v in dataset.validation + dataset.train:
        line = dumps(v.example())
        problems = check_line(line)
        assert not problems, f"built a bad line ({problems}): {line}"
        assert v.user_text() not in seen, f"duplicate prompt: {v}"
        seen.add(v.user_text())


def dumps(example: dict[str, Any]) -> str:
    """One JSONL line (without the newline): the key order given, real UTF-8, no escapes."""
    return json.dumps(example, ensure_ascii=False)


def jsonl(variations_: Iterable[Variation]) -> bytes:
    """The bytes of a JSONL file: one line per example, each ending in ``\\n``."""
    return "".join(dumps(v.example()) + "\n" for v in variations_).encode("utf-8")


# --- token estimate -------------------------------------------------------------------------------


def estimate_tokens(text: str) -> int:
    """A conservative (high) token count with no tokenizer at hand: one token per non-ASCII
    character (Arabic letters are 2 UTF-8 bytes: bytes / 2), one per 3 ASCII characters. Real
    Gemini tokenizers give about 4 ASCII characters and 2–3 Arabic letters per token, so the
    estimate overshoots, which is the safe side of a limit."""
    non_ascii = sum(1 for ch in text if ord(ch) > 127)
    return non_ascii + math.ceil((len(text) - non_ascii) / 3)


def example_tokens(example: dict[str, Any]) -> int:
    """Estimated input tokens of one well-formed line: system instruction and every turn's text,
    plus 4 tokens of framing per turn and per part."""
    total = 0
    contents = [example.get("systemInstruction") or {"parts": []}, *example.get("contents", [])]
    for content in contents:
        total += 4
        for part in content.get("parts", []):
            total += 4 + estimate_tokens(part.get("text", "") if isinstance(part, dict) else "")
    return total


# --- checking -------------------------------------------------------------------------------------

# Google's shapes (providers/job/shapes.py) name the keys; the rules below are the dataset's own,
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
    return report


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


# --- the tuning job's validation example ----------------------------------------------------------


def pick_validation_example(validation: list[Variation], form: str, poem: str) -> tuple[Variation, float]:
    """The validation line of ``form`` that the sample ``poem`` scores best against (the first of
    equals, in file order), and that reward: the job's create-time reward check then pairs a real
    dataset line with a real response, and a good poem must come out high."""
    from scorer.score import score  # the scorer is pure; imported here so checking never needs it

    best: tuple[Variation, float] | None = None
    for v in validation:
        if v.form != form:
            continue
        reward = score(poem, v.references()).reward
        if best is None or reward > best[1]:
            best = (v, reward)
    if best is None:
        raise ValueError(f"the validation split has no {form} line")
    return best


def validation_example(variation: Variation, poem: str) -> dict[str, Any]:
    """``{example, sample_response}`` as the ``validation_example`` input (docs/config.md)."""
    return {
        "example": variation.example(),
        "sample_response": {"role": "model", "parts": [{"text": poem}]},
    }
