"""`python -m emulator`: serve the local Vertex RLFT stand-in on 127.0.0.1.

It answers loopback names only, JSON bodies only (`guard`), and runs no request code unless
started with `--allow-code-execution` (`code_execution`).

The socket is bound here (port 0 picks a free one) before uvicorn starts, so the first line on
stdout can name the real port: `listening on http://127.0.0.1:PORT`, flushed at once, because
test harnesses and the demo read it to find the server.
"""

from __future__ import annotations

import argparse
import contextlib
import socket
import sys
from pathlib import Path

import uvicorn

from tunifolk import localcloud
from tunifolk.invoker import TIME_SCALE_ENV, time_scale

from .app import Emulator
from .faults import FaultConfig
from .hostile import READINGS, Hostile
from .jobs import JobSettings
from .limits import CODE_TIMEOUT_S, TUNING_LOCATIONS
from .rewards import RewardSettings
from .serving import ServingSettings
from .state import Options

DEFAULT_JUDGES = "gemini-2.5-pro,gemini-2.5-flash"


def _rate(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError("a rate must be in [0, 1]")
    return value


def _positive(text: str) -> float:
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("a time scale must be above 0")
    return value


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m emulator",
        description="Local Vertex AI v1beta1 RLFT emulator (tuning jobs, rewards, metrics, endpoints).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--port", type=int, default=8090, help="port on 127.0.0.1; 0 picks a free one")
    p.add_argument("--step-seconds", type=float, default=1.0, help="wall-clock seconds per training step")
    p.add_argument(
        "--gcs-dir",
        type=Path,
        default=Path("build/gcs"),
        help="gs://BUCKET/PATH is read from DIR/BUCKET/PATH",
    )
    p.add_argument(
        "--fault-seed", type=int, default=0, help="seed of the injected faults (ids are random, never seeded)"
    )
    p.add_argument(
        "--state-file",
        type=Path,
        default=None,
        help="keep jobs, models, endpoints, operations and metrics in this JSON file: read at start, "
        "written at stop, so a restart (tunifolk local stop/start) keeps them; unfinished jobs resume",
    )
    p.add_argument(
        "--concurrent-tuning-jobs",
        type=int,
        default=0,
        help="a project's quota of tuning jobs not yet ended, over every location: one more is refused with "
        "429 RESOURCE_EXHAUSTED (ErrorInfo RESOURCE_QUOTA_EXCEEDED); 0 (default) is no limit; `tunifolk "
        "local start` gives Google's default, tunifolk.emulator.limits.CONCURRENT_TUNING_JOBS",
    )
    p.add_argument(
        "--project-dir",
        type=Path,
        default=None,
        help="the gcp stand-in's directory: the project's enabled APIs and service agents are read from it "
        "(a fresh project refuses Vertex calls until aiplatform.googleapis.com is enabled)",
    )

    s = p.add_argument_group("scenarios")
    s.add_argument(
        "--scenario",
        choices=["honest", "hacking"],
        default="honest",
        help="honest: the policy improves at the task; hacking: a growing share of samples keeps the "
        "form perfectly but fills the lines with theme-free filler words (no images, no sense), so the "
        "structure reward rises while the judge (poetic_quality) falls",
    )
    s.add_argument(
        "--reward-fail-rate",
        type=_rate,
        default=0.0,
        help="share of outgoing Cloud Run reward invocations that fail on every retry (NaN, rpc error)",
    )
    s.add_argument("--fail-at-step", type=int, default=None, help="every job fails (INTERNAL) at this step")
    s.add_argument(
        "--cancel-ignored",
        action="store_true",
        help="cancel is accepted (state CANCELLING) but the job runs on and SUCCEEDS, as the service allows",
    )
    s.add_argument(
        "--report-progress",
        action="store_true",
        help="add tuningJobMetadata.completedStepCount/completedEpochCount to jobs "
        "(off: no progress field, as the seed saw)",
    )
    s.add_argument(
        "--samples-per-step",
        type=int,
        default=4,
        help="a training step scores whole GRPO groups (samplesPerPrompt responses of one prompt each) for "
        "max(1, N // samplesPerPrompt) prompts of its batch, at most batchSize: fewer prompts than Google, "
        "never smaller groups (samplesPerPrompt 16 and the default: one prompt, 16 responses a step); an "
        "evaluation scores N prompts, one response each",
    )
    s.add_argument(
        "--judge-models",
        action="append",
        default=None,
        metavar="REGION=M1,M2",
        help=f"judge models available in REGION (repeatable); default {DEFAULT_JUDGES} in "
        f"{' and '.join(TUNING_LOCATIONS)}, every other model 404s (e.g. gemini-3-pro-preview)",
    )
    s.add_argument(
        "--time-scale",
        "--backoff-scale",
        dest="time_scale",
        type=_positive,
        default=time_scale(),
        help="factor on Google's delays as the local stack models them: Vertex's Cloud Run retry backoff "
        "of 2, 4, 8, 16, 32 s (1 = real time); the gcp stand-in scales IAM propagation by the same "
        f"factor ({TIME_SCALE_ENV}, which sets the default; --backoff-scale is its old name)",
    )
    s.add_argument("--reward-timeout", type=float, default=30.0, help="seconds per Cloud Run reward request")
    s.add_argument(
        "--allow-code-execution",
        action="store_true",
        help="run codeExecutionRewardScorer snippets (request code!), each in a subprocess with an empty "
        "environment and a time limit; off: a request holding one is refused with 400 FAILED_PRECONDITION",
    )
    s.add_argument(
        "--code-timeout",
        type=float,
        default=None,
        help="seconds a code-execution reward may run before its process is killed (its reward is NaN); "
        f"default Google's {CODE_TIMEOUT_S:g} s per evaluate call times --time-scale",
    )
    s.add_argument(
        "--end-state",
        choices=["SUCCEEDED", "PARTIALLY_SUCCEEDED", "EXPIRED"],
        default="SUCCEEDED",
        help="how a job that runs every step ends (JOB_STATE_…)",
    )
    s.add_argument(
        "--pause-at-step",
        type=int,
        default=None,
        help="jobs are PAUSED for three step times before this step",
    )
    s.add_argument(
        "--loose-list-filter",
        action="store_true",
        help="list ignores labels.KEY=VALUE terms in `filter` (a lax server: clients must check labels)",
    )
    s.add_argument(
        "--lro-seconds",
        type=float,
        default=0.05,
        help="how long undeploy and delete operations run before they are done",
    )

    h = p.add_argument_group(
        "hostile readings (off by default): where Google's pages are silent or disagree, play the worst "
        "reading so the client meets it here (tunifolk/emulator/hostile.py cites each page)"
    )
    h.add_argument(
        "--hostile",
        action="store_true",
        help="every hostile reading at once (for the local stack: tunifolk local start "
        "--emulator-arg=--hostile): reward metadata `tuningJobId` as a JSON number instead of "
        "`tuning_job_id` (reward-functions guide vs REST reference); a reward the tuning agent may not "
        "invoke (403) validates to a bare NaN with no errorStatus (troubleshooting: NaN rewards, no "
        "code); tunedModel.model without @N though the job made a version (quick start's example "
        "response); a single-reward job has no per-reward series (metrics page)",
    )
    h.add_argument(
        "--hostile-reading",
        action="append",
        choices=sorted(READINGS),
        default=None,
        metavar="NAME",
        help=f"one hostile reading (repeatable): {', '.join(sorted(READINGS))}",
    )

    f = p.add_argument_group(
        "faults (off by default; drawn from --fault-seed; never on /healthz or /emulator/)"
    )
    f.add_argument(
        "--fault-503-rate", type=_rate, default=0.0, help="share of API requests answered 503 UNAVAILABLE"
    )
    f.add_argument(
        "--fault-429-rate",
        type=_rate,
        default=0.0,
        help="share answered 429 RESOURCE_EXHAUSTED with Retry-After",
    )
    f.add_argument(
        "--retry-after", type=float, default=1.0, help="Retry-After seconds on injected 429s (0 allowed)"
    )
    f.add_argument(
        "--fault-latency-ms", type=float, default=0.0, help="added latency per request, ms (0.5x-1.5x)"
    )
    f.add_argument(
        "--fault-html-rate", type=_rate, default=0.0, help="share answered 502 with an HTML error page"
    )
    f.add_argument(
        "--lro-error-rate",
        type=_rate,
        default=0.0,
        help="share of long-running operations (undeploy, deletes) that end in an error",
    )
    f.add_argument(
        "--lro-error-code",
        type=int,
        default=13,
        help="the google.rpc code of those errors: 13 INTERNAL (the thing stays), 5 NOT_FOUND (it is gone)",
    )
    f.add_argument(
        "--create-fault",
        choices=["none", "before", "after"],
        default="none",
        help="the first create call answers 503: 'before' the job is stored, or 'after' (the job exists!)",
    )
    return p


def judges(specs: list[str] | None) -> dict[str, set[str]]:
    if not specs:
        return {r: set(DEFAULT_JUDGES.split(",")) for r in TUNING_LOCATIONS}
    out: dict[str, set[str]] = {}
    for spec in specs:
        region, _, models = spec.partition("=")
        out.setdefault(region.strip(), set()).update(m.strip() for m in models.split(",") if m.strip())
    return out


def options(args: argparse.Namespace) -> Options:
    return Options(
        jobs=JobSettings(
            step_seconds=args.step_seconds,
            gcs_dir=args.gcs_dir,
            samples_per_step=max(1, args.samples_per_step),
            scenario=args.scenario,
            reward_fail_rate=args.reward_fail_rate,
            fail_at_step=args.fail_at_step,
            cancel_ignored=args.cancel_ignored,
            report_progress=args.report_progress,
            end_state=f"JOB_STATE_{args.end_state}",
            pause_at_step=args.pause_at_step,
            loose_list_filter=args.loose_list_filter,
            concurrent_jobs=max(0, args.concurrent_tuning_jobs),
        ),
        serving=ServingSettings(
            lro_seconds=args.lro_seconds,
            lro_error_rate=args.lro_error_rate,
            lro_error_code=args.lro_error_code,
        ),
        faults=FaultConfig(
            seed=args.fault_seed,
            rate_503=args.fault_503_rate,
            rate_429=args.fault_429_rate,
            retry_after=args.retry_after,
            latency_ms=args.fault_latency_ms,
            rate_html=args.fault_html_rate,
            create_fault=args.create_fault,
        ),
        rewards=RewardSettings(
            time_scale=args.time_scale,
            timeout_s=args.reward_timeout,
            judges=judges(args.judge_models),
            allow_code_execution=args.allow_code_execution,
            code_timeout_s=args.code_timeout
            if args.code_timeout is not None
            else CODE_TIMEOUT_S * args.time_scale,
        ),
        state_file=args.state_file,
        hostile=Hostile.every() if args.hostile else Hostile.of(args.hostile_reading or ()),
    )


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    app = localcloud.app(Emulator(options(args), project_dir=args.project_dir))
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(2048)
    port = sock.getsockname()[1]
    print(f"listening on http://127.0.0.1:{port}", flush=True)
    config = uvicorn.Config(
        app, log_level="warning", access_log=False, loop="auto", http="auto", lifespan="on"
    )
    server = uvicorn.Server(config)
    with contextlib.suppress(KeyboardInterrupt):
        server.run(sockets=[sock])
    sys.exit(0)


if __name__ == "__main__":
    main()
