"""`tunifolk doctor`: a read-only preflight of the project a stack points at, before the first `pulumi up`.

This module only gathers facts, with GET calls (and Resource Manager's `getIamPolicy`, a POST that
reads): Service Usage for the APIs, the project's allow policy for the tuning agent, Cloud Run for the
deployed scorer's invoker grant, Organization Policy for the constraints that refuse grants, Vertex
for the judges, the base model and the live tuning jobs. The rules are `tunifolk.doctor`'s, pure.
Nothing here enables an API, asks Google for a service identity or grants anything.

One code path for Google and the local stand-ins: every URL is `TUNIFOLK_VERTEX_ENDPOINT` (the local
emulator, which serves these reads from the stand-in's state: tunifolk/standin/reads.py) or else the
product's Google host, path unchanged; the client sends the token to Google's hosts only and never
prints it. Progress goes to stderr; the verdict to stdout; exit 1 while a blocker remains.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from tunifolk import doctor
from tunifolk.cli import context
from tunifolk.doctor import AIPLATFORM, BLOCKER, CONSTRAINTS, OK, WARNING, Facts, Finding
from tunifolk.errors import ConfigError, VertexError
from tunifolk.job.bodies import expand_model
from tunifolk.job.field_names import Input
from tunifolk.job.limits import LIVE_STATES
from tunifolk.operations import judge_problems, say
from tunifolk.project_state import STACK_APIS, STACK_DEFAULT_APIS
from tunifolk.vertex import VertexClient

HOSTS = {
    "serviceusage": "https://serviceusage.googleapis.com",
    "resourcemanager": "https://cloudresourcemanager.googleapis.com",
    "run": "https://run.googleapis.com",
    "orgpolicy": "https://orgpolicy.googleapis.com",
}
"""Google's host for each product doctor reads (their REST references: tunifolk/standin/reads.py)."""


def register(subcommands: argparse._SubParsersAction) -> None:
    p = subcommands.add_parser(
        "doctor",
        help="read-only preflight of the stack's project: APIs, tuning agent, grants, org policy, models",
        description="Read, never change, the project the stack points at: the APIs it needs, Vertex's "
        "tuning agent, the deployed scorer's invoker grant, organisation policies that refuse grants, "
        "Cloud Build's region, the judges and base model in the region, and live tuning jobs. One line "
        "per blocker naming its fix, warnings apart. Exit 1 while a blocker remains, 0 when clear, 2 on "
        "usage or configuration errors. Run it before the first pulumi up (docs/doctor.md).",
    )
    context.add_stack_options(p)
    p.add_argument("--json", action="store_true", help="print every finding as JSON (with exact commands)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    cfg = context.stack_config(args)
    project, region = context.project_and_location(args)
    stack = context.stack_name(args)
    facts = Facts(
        project=project,
        region=region,
        enable_apis=bool(cfg.enable_apis),
        builds_image=not (cfg.scorer and cfg.scorer.image),
        base_model=cfg.job.get(Input.BASE_MODEL),
    )
    with context.client() as client:
        gather(client, facts, {**cfg.job, Input.PROJECT: project, Input.LOCATION: region}, stack)
        calls = client.calls
    findings = doctor.diagnose(facts)
    say(f"read project {project} with {calls} HTTP calls, changed nothing")
    code = doctor.exit_code(findings)
    if args.json:
        print(json.dumps(report(facts, stack, findings, code), indent=2))
    else:
        print_text(facts, stack, findings)
    return code


def report(facts: Facts, stack: str, findings: list[Finding], code: int) -> dict[str, Any]:
    by = {level: [f.to_dict() for f in findings if f.level == level] for level in (BLOCKER, WARNING, OK)}
    return {
        "stack": stack,
        "project": facts.project,
        "number": facts.number,
        "region": facts.region,
        "blockers": by[BLOCKER],
        "warnings": by[WARNING],
        "ok": by[OK],
        "exit": code,
    }


def print_text(facts: Facts, stack: str, findings: list[Finding]) -> None:
    number = f" (number {facts.number})" if facts.number else ""
    print(f"stack {stack}: project {facts.project}{number}, region {facts.region}")
    blockers = [f for f in findings if f.level == BLOCKER]
    warnings = [f for f in findings if f.level == WARNING]
    for f in blockers:
        print(f"BLOCKER {f.line()}")
    for f in warnings:
        print(f"warning {f.line()}")
    unread = sum(1 for f in warnings if f.unread)
    if blockers:
        print(
            f"{len(blockers)} blocker(s), {len(warnings)} warning(s): fix the blockers, then run doctor again"
        )
    elif unread:
        print(f"no blocker found, but {unread} check(s) could not read what they need: see the warnings")
    else:
        print(f"no blocker ({len(warnings)} warning(s)): ready for pulumi up")


# --------------------------------------------------------------------------- gathering


def _url(client: VertexClient, product: str, path: str) -> str:
    return f"{client.endpoint or HOSTS[product]}{path}"


def _why(exc: VertexError) -> str:
    """A refusal in a few words, for a warning: which API is off, or Google's status and message."""
    if exc.service_disabled:
        return f"{exc.metadata.get('service', 'its API')} is off"
    return f"{exc.status} {exc.status_name or ''} {exc.message[:160]}".replace("  ", " ").strip()


def gather(client: VertexClient, facts: Facts, inputs: dict[str, Any], stack: str) -> None:
    """Fill `facts` with what the project answers; what it refuses goes to `facts.unread`."""
    say(f"reading project {facts.project}: APIs")
    read_apis(client, facts)
    say("reading the project's allow policy")
    read_policy(client, facts)
    read_scorer(client, facts, stack)
    say("reading organisation policies")
    read_org_policies(client, facts)
    say(f"probing the judges and the base model in {facts.region}")
    read_models(client, facts, inputs)
    read_live_jobs(client, facts)


def read_apis(client: VertexClient, facts: Facts) -> None:
    """Service Usage `services.get` for each API; the project number from the answer's `parent`."""
    for service in (*STACK_APIS, *STACK_DEFAULT_APIS):
        try:
            got = client.request(
                "GET", _url(client, "serviceusage", f"/v1/projects/{facts.project}/services/{service}")
            )
        except VertexError as exc:
            if client.endpoint and _not_service_usage(exc):
                raise ConfigError(
                    f"the local emulator at {client.endpoint} does not serve Google's read calls "
                    "(tunifolk/standin/reads.py): run python -m tunifolk local stop, then local start"
                ) from None
            facts.unread["apis"] = _why(exc)
            return
        facts.apis[service] = got.get("state") == "ENABLED"
        parent = str(got.get("parent", ""))
        if facts.number is None and parent.removeprefix("projects/").isdigit():
            facts.number = parent.removeprefix("projects/")
    if facts.number is None:
        facts.unread["number"] = "Service Usage named no project number"


def _not_service_usage(exc: VertexError) -> bool:
    """A local endpoint that answers Service Usage's path as something else: an HTML 404, or the Vertex
    emulator's own SERVICE_DISABLED for aiplatform (an emulator without tunifolk/standin/reads.py)."""
    if exc.status == 404 and not exc.status_name:
        return True
    return exc.service_disabled and exc.metadata.get("service") != "serviceusage.googleapis.com"


def read_policy(client: VertexClient, facts: Facts) -> None:
    """Resource Manager `projects.getIamPolicy` (v1; a POST by Google's design, which changes nothing)."""
    url = _url(client, "resourcemanager", f"/v1/projects/{facts.project}:getIamPolicy")
    try:
        facts.policy = client.request("POST", url, body={"options": {"requestedPolicyVersion": 3}})
    except VertexError as exc:
        facts.unread["policy"] = _why(exc)


def read_scorer(client: VertexClient, facts: Facts, stack: str) -> None:
    """The stack's deployed scorer (its `scorer_uri` output) among Cloud Run's services, and its policy."""
    uri, _ = context.stack_output("scorer_uri", stack)
    facts.scorer_uri = uri
    if not uri:
        return
    say("reading the scorer's IAM policy")
    base = f"/v2/projects/{facts.project}/locations/{facts.region}/services"
    try:
        listed = client.request("GET", _url(client, "run", base)).get("services") or []
        found = [s for s in listed if s.get("uri") == uri]
        if not found:
            return
        facts.scorer_service = str(found[0]["name"])
        facts.scorer_policy = client.request(
            "GET", _url(client, "run", f"/v2/{facts.scorer_service}:getIamPolicy")
        )
    except VertexError as exc:
        facts.unread["invoker"] = _why(exc)


def read_org_policies(client: VertexClient, facts: Facts) -> None:
    """Organization Policy v2 `getEffectivePolicy` for each constraint that can refuse the stack's grants."""
    for constraint in CONSTRAINTS:
        url = _url(
            client, "orgpolicy", f"/v2/projects/{facts.project}/policies/{constraint}:getEffectivePolicy"
        )
        try:
            facts.org_policies[constraint] = client.request("GET", url).get("spec") or {}
        except VertexError as exc:
            facts.unread["org-policy"] = _why(exc)
            return


def read_models(client: VertexClient, facts: Facts, inputs: dict[str, Any]) -> None:
    """The judges through `operations.judge_problems` (the same probe create runs), and the base model."""
    if facts.apis.get(AIPLATFORM) is False:
        facts.unread["models"] = f"{AIPLATFORM} is off"
        return
    try:
        facts.judge_problems = judge_problems(client, inputs)
        if facts.base_model:
            model = expand_model(facts.base_model, facts.project, facts.region)
            facts.base_answers = client.judge_available(facts.project, facts.region, model)
    except VertexError as exc:
        facts.unread["models"] = _why(exc)


def read_live_jobs(client: VertexClient, facts: Facts) -> None:
    """Vertex's tuning jobs in the region that are still live (the quota counts them)."""
    if facts.apis.get(AIPLATFORM) is False:
        facts.unread["quota"] = f"{AIPLATFORM} is off"
        return
    try:
        jobs = client.list_tuning_jobs(f"projects/{facts.project}/locations/{facts.region}")
    except VertexError as exc:
        facts.unread["quota"] = _why(exc)
        return
    facts.live_jobs = sum(1 for j in jobs if j.get("state") in LIVE_STATES)
