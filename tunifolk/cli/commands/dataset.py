"""`tunifolk dataset build | check`: write the tuning dataset from the catalogue, or check one.

The builder and the line checker are `tunifolk/dataset/`; this module is the command around them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from scorer.catalogue import FORMS
from tunifolk.cli import context
from tunifolk.cli.context import PROBLEM, USAGE, help_for
from tunifolk.dataset.build import (
    DEFAULT_SEED,
    DEFAULT_TRAIN,
    DEFAULT_VALIDATION,
    build,
    jsonl,
    pick_validation_example,
    validation_example,
)
from tunifolk.dataset.check import FileReport, check_stream, format_stats, shared_prompts, split_of
from tunifolk.dataset.spec import MAX_DUPLICATE_SHARE, TRAIN_LIMIT, VALIDATION_LIMIT

WARNINGS_SHOWN = 10
"""Warning lines printed per file; the rest are counted."""


def register(subcommands: argparse._SubParsersAction) -> None:
    """``tunifolk dataset build | check``."""
    group = subcommands.add_parser(
        "dataset",
        help="build or check the tuning dataset (JSONL)",
        description="Build the tuning dataset from the scorer's form catalogue, or check any dataset "
        "line by line before it is uploaded.",
    )
    actions = group.add_subparsers(title="dataset commands", metavar="ACTION")
    group.set_defaults(func=help_for(group))

    build_cmd = actions.add_parser(
        "build",
        help="write train.jsonl and validation.jsonl from the catalogue",
        description="Write OUT/train.jsonl and OUT/validation.jsonl (docs/dataset.md): the scorer's "
        "catalogue × themes × variations (stanza count, refrain or not, Arabic or Arabizi script, "
        "instructions in Derja, MSA, French or English). The same seed gives the same bytes; no "
        "prompt is in both splits.",
        epilog="Example: python -m tunifolk dataset build --out data --seed 0 "
        "--sample data/samples/malzuma.txt",
    )
    build_cmd.add_argument(
        "--out", required=True, type=Path, metavar="DIR", help="output directory (created)"
    )
    build_cmd.add_argument(
        "--seed", type=int, default=DEFAULT_SEED, help=f"random seed (default {DEFAULT_SEED})"
    )
    build_cmd.add_argument(
        "--train",
        type=context.count("--train", TRAIN_LIMIT),
        default=DEFAULT_TRAIN,
        metavar="N",
        help=f"training examples, 1 to {TRAIN_LIMIT:,} (default {DEFAULT_TRAIN}: "
        "the seed's run, 843 // 32 × 6 = 156 steps)",
    )
    build_cmd.add_argument(
        "--validation",
        type=context.count("--validation", VALIDATION_LIMIT),
        default=DEFAULT_VALIDATION,
        metavar="N",
        help=f"validation examples, 1 to {VALIDATION_LIMIT} (default {DEFAULT_VALIDATION})",
    )
    build_cmd.add_argument(
        "--sample",
        type=Path,
        metavar="POEM",
        help="a correct sample poem, data/samples/<form>.txt: also write OUT/validation_example.json "
        "pairing it with the validation line of that form it scores best against",
    )
    build_cmd.set_defaults(func=_build)

    check_cmd = actions.add_parser(
        "check",
        help="check JSONL dataset files line by line",
        description="Check every line: valid JSON, the ReinforcementTuningExample shape, references "
        "string → string with the keys of docs/dataset.md and a known form, a non-empty user turn, "
        "the size limits. Prints FILE:LINE: problem for each, then summary statistics; exit 1 if any "
        f"problem. A prompt repeated within a file is a warning (exit 0), and a problem once repeats "
        f"are more than {MAX_DUPLICATE_SHARE:.0%} of the file's examples.",
    )
    check_cmd.add_argument("files", nargs="+", type=Path, metavar="FILE", help="JSONL files")
    check_cmd.add_argument(
        "--split",
        choices=("auto", "train", "validation"),
        default="auto",
        help="which example limit applies (train 5,000, validation 500); auto: validation when the file "
        "name starts with 'val' or contains 'valid', '_val' or '-val', else train",
    )
    check_cmd.set_defaults(func=_check)


def _build(args: argparse.Namespace) -> int:
    built = build(args.seed, args.train, args.validation)
    poem = form = None
    if args.sample is not None:
        form = args.sample.stem
        if form not in FORMS:
            print(
                f"tunifolk dataset build: --sample {args.sample}: the file name must be <form>.txt "
                f"with a form id of the catalogue ({', '.join(FORMS)})",
                file=sys.stderr,
            )
            return USAGE
        try:
            poem = args.sample.read_text(encoding="utf-8")
        except OSError as e:
            print(f"tunifolk dataset build: cannot read {args.sample}: {e.strerror}", file=sys.stderr)
            return USAGE
    args.out.mkdir(parents=True, exist_ok=True)
    for name, lines in (("train.jsonl", built.train), ("validation.jsonl", built.validation)):
        path = args.out / name
        _write(path, jsonl(lines))
        with path.open("rb") as handle:
            report = check_stream(handle, split_of(name), path.stat().st_size)
        print("\n".join(format_stats(str(path), report.stats)))
    if poem is not None and form is not None:
        chosen, reward = pick_validation_example(built.validation, form, poem)
        where = built.validation.index(chosen) + 1
        print(
            f"validation example: {args.out / 'validation.jsonl'}:{where} "
            f"({chosen.form}, {chosen.stanzas} stanzas, refrain {chosen.refrain}, {chosen.script}) "
            f"with {args.sample}: reward {reward:.3f}"
        )
        if reward < 0.5:
            print(
                f"tunifolk dataset build: {args.sample} scores only {reward:.3f}; not written",
                file=sys.stderr,
            )
            return PROBLEM
        body = json.dumps(validation_example(chosen, poem), ensure_ascii=False, indent=2) + "\n"
        _write(args.out / "validation_example.json", body.encode("utf-8"))
    return 0


def _write(path: Path, data: bytes) -> None:
    """Write through a temporary file and rename, so a reader never sees half a dataset."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


def _check(args: argparse.Namespace) -> int:
    reports: dict[str, FileReport] = {}
    for path in args.files:
        split = split_of(path.name) if args.split == "auto" else args.split
        try:
            with path.open("rb") as handle:
                reports[str(path)] = check_stream(handle, split, path.stat().st_size)
        except OSError as e:
            print(f"tunifolk dataset check: cannot read {path}: {e.strerror}", file=sys.stderr)
            return USAGE
    total = 0
    for name, report in reports.items():
        for line, message in sorted(report.warnings, key=lambda w: w[0] or 0)[:WARNINGS_SHOWN]:
            print(f"{name}:{line}: {message}")
        if len(report.warnings) > WARNINGS_SHOWN:
            print(f"{name}: … and {len(report.warnings) - WARNINGS_SHOWN} more warnings")
        for line, message in report.problems:
            print(f"{name}:{line}: {message}" if line is not None else f"{name}: {message}")
            total += 1
    for name, report in reports.items():
        print("\n".join(format_stats(name, report.stats)))
    if len(reports) > 1:
        shared = shared_prompts(reports)
        detail = ", ".join(f"{a}:{la} = {b}:{lb}" for a, la, b, lb in shared[:5])
        print(f"prompts shared between files: {len(shared)}" + (f" ({detail}…)" if shared else ""))
    if total:
        print(
            f"{total} problem{'s' * (total != 1)} in {sum(1 for r in reports.values() if r.problems)} file(s)"
        )
        return PROBLEM
    warned = sum(len(r.warnings) for r in reports.values())
    note = f" ({warned} warning{'s' * (warned != 1)}: repeated prompts)" if warned else ""
    print(f"ok: {sum(r.stats.examples for r in reports.values())} examples in {len(reports)} file(s){note}")
    return 0
