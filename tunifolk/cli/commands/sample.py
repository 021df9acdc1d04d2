"""`tunifolk sample`: write poems with a tuned (or checkpoint) endpoint and score each one.

The prompt is built from the same catalogue entry as the dataset and the reward, and each poem is
scored by the scorer's own core (no server needed), so what you read is what training optimised.
Tuned endpoints live in `locations/us` (or `eu`) and are served from the multi-region host; the
client picks it from the endpoint's name.
"""

from __future__ import annotations

import argparse
from typing import Any

from rich.panel import Panel
from rich.table import Table

from scorer.catalogue import FORMS, LANGUAGES, lookup
from scorer.catalogue import instruction as form_instruction
from tunifolk.cli import context, untrusted
from tunifolk.cli.context import PROBLEM, UsageError
from tunifolk.dataset.spec import SYSTEM_INSTRUCTIONS


def register(subcommands: argparse._SubParsersAction) -> None:
    p = subcommands.add_parser(
        "sample",
        help="generate poems on a tuned endpoint and score their structure",
        description="Ask ENDPOINT for K poems of FORM and print each with its structure reward and "
        "sub-scores from the scorer's core.",
    )
    p.add_argument(
        "--endpoint",
        required=True,
        type=context.vertex_name("--endpoint"),
        help="projects/P/locations/us/endpoints/E (tuned or checkpoint)",
    )
    p.add_argument("--form", required=True, help=f"a form id: {', '.join(FORMS)}")
    p.add_argument("--n", type=context.count("--n"), default=1, help="how many poems (default 1)")
    p.add_argument("--stanzas", help="stanza (or bayt) count; default: the form's")
    p.add_argument("--refrain", choices=("yes", "no"), help="with or without refrain (malzuma)")
    p.add_argument("--script", choices=("arabic", "arabizi"), default="arabic")
    p.add_argument("--language", choices=LANGUAGES, default="derja", help="language of the instruction")
    p.add_argument("--theme", default="the sea at Sidi Bou Said", help="what the poem is about")
    p.add_argument("--temperature", type=float, default=1.0)
    p.set_defaults(func=run)


def request_body(args: argparse.Namespace) -> tuple[dict[str, Any], dict[str, str]]:
    """The generateContent body and the `references` the scorer reads (as in a dataset line)."""
    spec = lookup(args.form)
    if spec is None:
        raise UsageError(f"--form {args.form!r} is not in the catalogue: use one of {', '.join(FORMS)}")
    stanzas = args.stanzas or str(spec.stanzas)
    refrain = args.refrain or ("yes" if spec.refrain != "none" else "no")
    try:
        prompt = form_instruction(spec.id, stanzas, refrain, args.script, args.language, args.theme)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    body = {
        "systemInstruction": {"parts": [{"text": SYSTEM_INSTRUCTIONS[args.language]}]},
        "contents": [{"role": "user", "parts": [{"text": prompt}]}],
        "generationConfig": {"temperature": args.temperature},
    }
    references = {"form": spec.id, "stanzas": stanzas, "refrain": refrain, "script": args.script}
    return body, references


def poem_of(response: dict[str, Any]) -> dict[str, Any]:
    """The first candidate's content (thought parts are left for the scorer to drop)."""
    candidates = response.get("candidates") or []
    return (candidates[0].get("content") or {}) if candidates else {}


def run(args: argparse.Namespace) -> int:
    from scorer.score import score  # here: `tunifolk --help` needs none of the scorer's tables

    body, references = request_body(args)
    out = context.console()
    empty = 0
    with context.client() as client:
        for i in range(1, args.n + 1):
            content = poem_of(client.generate_content(args.endpoint, body))
            text = "\n".join(p.get("text", "") for p in content.get("parts") or [] if not p.get("thought"))
            empty += not text.strip()
            result = score(content, references)
            shown = untrusted.text(text or "(no text)")
            out.print(Panel(shown, title=untrusted.text(f"poem {i}/{args.n}: {args.form}"), expand=False))
            table = Table(show_header=False, box=None)
            table.add_row("structure reward", f"[bold]{result.reward:+.3f}[/]")
            for name, value in result.subscores.items():
                table.add_row(name, f"{value:.3f}")
            table.add_row("reason", untrusted.text(result.reason))
            out.print(table)
    return PROBLEM if empty == args.n else 0
