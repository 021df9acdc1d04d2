"""The `tunifolk` operator CLI: one top-level parser, one module per command.

Commands live in `tunifolk/cli/commands/<command>.py`; each exposes `register(subcommands)`. Every
expected failure arrives as a `tunifolk.errors.TunifolkError` and leaves as one line on stderr and
its exit code: 0 fine, 1 a problem found, 2 usage or configuration. `--debug` shows the traceback.
Anything else is a bug, and shows its traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import traceback
from collections.abc import Sequence
from typing import NoReturn

from tunifolk.cli.context import help_for
from tunifolk.errors import USAGE, TunifolkError

COMMANDS: tuple[str, ...] = (
    "validate",
    "launch",
    "list",
    "cancel",
    "status",
    "watch",
    "sample",
    "rollouts",
    "replay",
    "eval",
    "estimate",
    "demo",
    "dataset",
    "local",
    "doctor",
)
"""Modules of `tunifolk.cli.commands`, in the order their commands appear in `--help`."""


class Parser(argparse.ArgumentParser):
    """argparse, with a usage error on one line that names the flag and where help is."""

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE, f"{self.prog}: {message} (see `{self.prog} --help`)\n")


def build_parser() -> argparse.ArgumentParser:
    """The whole CLI's parser, with every registered command (their parsers are `Parser`s too)."""
    parser = Parser(
        prog="tunifolk",
        description="RLFT of Gemini on Vertex AI for Tunisian folk poetry: the operator CLI.",
        epilog="Exit codes: 0 fine, 1 a problem found, 2 usage or configuration. "
        "`python -m tunifolk` is the same program. TUNIFOLK_VERTEX_ENDPOINT=http://127.0.0.1:PORT "
        "sends every Vertex call to a local emulator.",
    )
    parser.add_argument(
        "--debug", action="store_true", help="show the traceback of any failure (anywhere on the line)"
    )
    subcommands = parser.add_subparsers(title="commands", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"tunifolk.cli.commands.{name}").register(subcommands)
    parser.set_defaults(func=help_for(parser))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse `argv` (default `sys.argv[1:]`) and run the command; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv  # accepted anywhere on the line, not only before the command
    parser = build_parser()
    try:
        args = parser.parse_args([a for a in argv if a != "--debug"])
    except SystemExit as exc:  # argparse's own usage errors (2) and --help (0)
        return int(exc.code or 0)
    try:
        return int(args.func(args))
    except TunifolkError as exc:
        if debug:
            traceback.print_exc()
        first, *rest = str(exc).splitlines() or [type(exc).__name__]
        print(f"tunifolk: {first}", *rest, sep="\n", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("tunifolk: interrupted", file=sys.stderr)
        return 130
