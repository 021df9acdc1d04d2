"""`tunifolk eval`: sample held-out prompts on every checkpoint (and the base model), score them, and
name the checkpoint to ship.

The samples are drawn with `generateContent` on each checkpoint's endpoint (the base model through its
publisher model name), scored for structure by the checkout's scorer in process, rated by the job's
own judge (its autorater model, prompt and parse, called through `generateContent`), and combined
with the job's weights. The figures, the intervals, the trip wires and the choice are pure
(`tunifolk/checkpoint_eval.py`); this module draws, prices, writes and prints. Before it spends, it
prints the calls and their cost on Google and refuses above `--max-cost`; a model that fails is one
line and the others go on; the samples go to the rollout ledger under their own label (`tunifolk
rollouts --eval`) and to `samples.jsonl` beside the report, so nothing drawn is lost.
"""

from __future__ import annotations

import argparse
import json
import math
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import orjson
from rich.table import Table

from scorer import ledger as record_fields
from tunifolk import checkpoint_eval as ce
from tunifolk import metrics as job_metrics
from tunifolk.cli import context
from tunifolk.cli.context import PROBLEM, ROOT, UsageError
from tunifolk.errors import TunifolkError, UnreachableError, VertexError
from tunifolk.job import estimate as est
from tunifolk.job import judge as judges
from tunifolk.ledger import names
from tunifolk.ledger.bigquery import LedgerReader
from tunifolk.operations import say, try_metrics
from tunifolk.vertex import VertexClient

DEFAULT_SAMPLES = 2
DEFAULT_MAX_COST = 25.0
"""USD an evaluation may cost on Google without --max-cost: a few checkpoints on the validation set."""
CALL_ERRORS = (VertexError, UnreachableError, TimeoutError, OSError)


def register(subcommands: argparse._SubParsersAction) -> None:
    p = subcommands.add_parser(
        "eval",
        help="evaluate every checkpoint on held-out prompts and name the one to ship",
        description="Sample held-out prompts on each checkpoint's endpoint (and the base model), score "
        "them with this checkout's scorer and the job's own judge, combine them with the job's weights, "
        "and report each figure with a bootstrap interval, the trip wires' verdict per checkpoint, and "
        "the best checkpoint: the earliest whose interval reaches the highest combined mean, HACKING "
        "verdicts excluded. Prints the calls and their cost first and refuses above --max-cost. Writes "
        "report.md, checkpoints.png and samples.jsonl to --out, and the samples to the rollout ledger "
        "(`tunifolk rollouts --eval`). Exit 1 when no checkpoint qualifies.",
    )
    context.add_job_options(p)
    context.add_ledger_option(p)
    p.add_argument("--checkpoints", default="all", help="all (default), or checkpoint IDs: 2,4,6")
    p.add_argument(
        "--base",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also sample the base model, the reference the trip wires start from (default: yes)",
    )
    p.add_argument(
        "--prompts",
        type=Path,
        help="JSONL of held-out examples (ReinforcementTuningExample lines; default: the stack's "
        "validation set)",
    )
    p.add_argument("--limit", type=context.count("--limit"), help="only the first N prompts")
    p.add_argument(
        "--samples",
        type=context.count("--samples", 64),
        default=DEFAULT_SAMPLES,
        help=f"samples per prompt and model (default {DEFAULT_SAMPLES})",
    )
    p.add_argument("--seed", type=int, default=0, help="the samples' and the bootstrap's seed (default 0)")
    p.add_argument(
        "--judge",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="rate each sample with the job's autorater (default: yes; without, the combined reward is "
        "the structure reward)",
    )
    p.add_argument(
        "--max-cost",
        type=_usd,
        metavar="USD",
        help=f"refuse when the calls would cost more on Google (default {DEFAULT_MAX_COST:g}; against the "
        "local emulator only when given)",
    )
    p.add_argument("--out", type=Path, help="where the report goes (default build/eval/JOB_ID)")
    p.add_argument(
        "--workers", type=context.count("--workers", 64), default=8, help="calls in flight (default 8)"
    )
    p.add_argument("--json", action="store_true", help="print the evaluation as JSON")
    p.set_defaults(func=run)


def _usd(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of US dollars") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text} must be a positive number of US dollars")
    return value


# --------------------------------------------------------------------------- what the job says


def rewards_of(job: dict[str, Any]) -> tuple[ce.Weights, dict[str, Any] | None]:
    """The job's weights as evaluation reads them, and its first autorater scorer (API names)."""
    spec = job.get("reinforcementTuningSpec") or {}
    single = spec.get("singleRewardConfig")
    weighted = (spec.get("compositeRewardConfig") or {}).get("weightedRewardConfigs") or []
    pairs = (
        [(single, 1.0)]
        if isinstance(single, dict)
        else [
            (w.get("rewardConfig") or {}, float(w.get("weight", 1.0)))
            for w in weighted
            if isinstance(w, dict)
        ]
    )
    structure = sum(w for c, w in pairs if "cloudRunRewardScorer" in c)
    judge = sum(w for c, w in pairs if "autoraterScorer" in c)
    scorer = next((c["autoraterScorer"] for c, _ in pairs if "autoraterScorer" in c), None)
    if not structure and not judge:
        raise TunifolkError(
            f"{job.get('name')} has no Cloud Run or autorater reward: eval scores those two kinds only"
        )
    return ce.Weights(structure, judge), scorer


def targets_of(job: dict[str, Any], wanted: str, base: bool) -> list[ce.Target]:
    """The checkpoints `--checkpoints` names (every one for `all`), and the base model when asked."""
    found = job_metrics.checkpoints(job)
    if not found:
        raise TunifolkError(
            f"{job['name']} has no checkpoints yet ({job.get('state', '?')}): it writes one every "
            "checkpointInterval steps; run eval again once `tunifolk status` lists one"
        )
    ids = [c["checkpoint_id"] for c in found]
    if wanted.strip().lower() != "all":
        asked = [w.strip() for w in wanted.split(",") if w.strip()]
        unknown = [a for a in asked if a not in ids]
        if unknown or not asked:
            raise UsageError(
                f"--checkpoints {wanted!r}: {job['name'].rsplit('/', 1)[-1]} has checkpoints {', '.join(ids)}"
            )
        found = [c for c in found if c["checkpoint_id"] in asked]
    out = [
        ce.Target(f"checkpoint {c['checkpoint_id']}", c["step"], c["endpoint"], c["checkpoint_id"])
        for c in found
    ]
    if base:
        project, location = job["name"].split("/")[1], job["name"].split("/")[3]
        model = str(job.get("baseModel") or "").rsplit("/", 1)[-1]
        if model:
            out.insert(
                0,
                ce.Target(
                    ce.BASE, 0, f"projects/{project}/locations/{location}/publishers/google/models/{model}"
                ),
            )
    return out


def read_prompts(path: Path, limit: int | None) -> list[dict[str, Any]]:
    """The held-out examples of a JSONL file, the first `limit` of them."""
    examples = []
    try:
        with path.open(encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    example = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise UsageError(f"--prompts {path}: line {number} is not JSON ({exc.msg})") from None
                if not isinstance(example, dict) or not isinstance(example.get("contents"), list):
                    raise UsageError(f"--prompts {path}: line {number} has no `contents` list")
                examples.append(example)
                if limit and len(examples) >= limit:
                    break
    except OSError as exc:
        raise UsageError(f"--prompts {path}: {exc.strerror}") from None
    if not examples:
        raise UsageError(f"--prompts {path}: no examples")
    return examples


def prompts_path(args: argparse.Namespace) -> Path:
    if args.prompts:
        return args.prompts
    cfg = context.stack_config(args)
    if not cfg.dataset.validation:
        raise UsageError("the stack has no validation set (tunifolk:dataset.validation): pass --prompts FILE")
    return ROOT / cfg.dataset.validation


# --------------------------------------------------------------------------- drawing and scoring


class Draw:
    """Draws and scores every sample: one client per worker thread (a session is not shared), a model
    that fails once is marked and not called again."""

    def __init__(self, args: argparse.Namespace, weights: ce.Weights, judge: dict[str, Any] | None) -> None:
        self.args, self.weights, self.judge = args, weights, judge
        self.failed: dict[str, str] = {}
        self.judge_errors = 0
        self._local = threading.local()
        self._clients: list[VertexClient] = []
        self._lock = threading.Lock()

    def client(self) -> VertexClient:
        if not hasattr(self._local, "client"):
            self._local.client = context.client()
            with self._lock:
                self._clients.append(self._local.client)
        return self._local.client

    def close(self) -> None:
        for c in self._clients:
            c.close()

    def one(self, target: ce.Target, prompt: int, example: dict[str, Any], k: int) -> ce.Sample | None:
        if target.label in self.failed:
            return None
        body: dict[str, Any] = {
            "contents": example["contents"],
            "generationConfig": {"seed": _seed(self.args.seed, prompt, k)},
        }
        if isinstance(example.get("systemInstruction"), dict):
            body["systemInstruction"] = example["systemInstruction"]
        try:
            answer = self.client().generate_content(target.name, body)
        except CALL_ERRORS as exc:
            with self._lock:
                self.failed.setdefault(target.label, _one_line(exc))
            return None
        candidates = answer.get("candidates") or []
        content = (candidates[0].get("content") or {}) if candidates else {}
        refs = example.get("references") if isinstance(example.get("references"), dict) else {}
        from scorer.score import score  # here: `tunifolk --help` needs none of the scorer's tables

        result = score(content, refs)
        text = judges.content_text(content)
        rating = self.rate(example, text, prompt, k) if self.judge is not None else None
        return ce.Sample(
            target=target.label,
            step=target.step,
            prompt=prompt,
            example_digest=record_fields.example_digest(example),
            references=record_fields.kept_references(refs),
            text=text,
            structure=result.reward,
            subscores={n: float(v) for n, v in result.subscores.items() if math.isfinite(v)},
            reason=result.reason,
            judge=rating,
            combined=self.weights.combined(result.reward, rating),
        )

    def rate(self, example: dict[str, Any], text: str, prompt: int, k: int) -> float | None:
        """The judge's reward for `text`: its prompt filled, called `samplingCount` times, each answer
        parsed and converted as Google does, averaged; None when a call or an answer fails."""
        scorer = self.judge or {}
        config = scorer.get("autoraterConfig") or {}
        filled = judges.fill_prompt(str(scorer.get("autoraterPrompt", "")), example, text)
        values = []
        for i in range(max(1, int(config.get("samplingCount") or 1))):
            body = {
                "contents": [{"role": "user", "parts": [{"text": filled}]}],
                "generationConfig": {
                    **(config.get("generationConfig") or {}),
                    "seed": _seed(self.args.seed, prompt, k, i),
                },
            }
            try:
                answer = self.client().generate_content(str(config.get("autoraterModel")), body)
                candidates = answer.get("candidates") or []
                reply = judges.content_text((candidates[0].get("content") or {}) if candidates else {})
                values.append(judges.answer_reward(scorer, reply, example))
            except (*CALL_ERRORS, ValueError):
                with self._lock:
                    self.judge_errors += 1
                return None
        return sum(values) / len(values)


def _seed(*parts: int) -> int:
    """A generation seed from the run's seed and the sample's coordinates (an int32, as the field is)."""
    h = 17
    for p in parts:
        h = (h * 1_000_003 + p) % 2_147_483_647
    return h


def _one_line(exc: BaseException) -> str:
    return (str(exc).splitlines() or [type(exc).__name__])[0]


def draw_all(
    draw: Draw, targets: list[ce.Target], examples: list[dict[str, Any]], samples: int, workers: int
) -> list[ce.Sample]:
    """Every sample of every target, `workers` calls at a time, a line on stderr as each target ends."""
    jobs = [(t, i, ex, k) for t in targets for i, ex in enumerate(examples) for k in range(samples)]
    left = {t.label: len(examples) * samples for t in targets}
    done: list[ce.Sample] = []
    lock = threading.Lock()

    def work(t: ce.Target, i: int, ex: dict[str, Any], k: int) -> None:
        s = draw.one(t, i, ex, k)
        with lock:
            if s is not None:
                done.append(s)
            left[t.label] -= 1
            if left[t.label] == 0:
                why = draw.failed.get(t.label)
                say(f"eval: {t.label} (step {t.step}) " + (f"failed: {why}" if why else "sampled"))

    with ThreadPoolExecutor(workers) as pool:
        for f in [pool.submit(work, *j) for j in jobs]:
            f.result()
    return done


# --------------------------------------------------------------------------- the command


def run(args: argparse.Namespace) -> int:
    name = context.job_name(args)
    job_id = name.rsplit("/", 1)[-1]
    out = context.console()
    with context.client() as client:
        job = client.get_tuning_job(name)
        metrics = try_metrics(client, job)
        local = bool(client.endpoint)
    weights, judge = rewards_of(job)
    if not args.judge:
        judge = None
    targets = targets_of(job, args.checkpoints, args.base)
    examples = read_prompts(prompts_path(args), args.limit)
    sampling = int(((judge or {}).get("autoraterConfig") or {}).get("samplingCount") or 1)
    assumptions = est.default_assumptions(
        {"hyper_parameters": _snake(job.get("reinforcementTuningSpec", {}).get("hyperParameters") or {})}
    )
    the_plan = ce.plan(
        sum(t.checkpoint_id is not None for t in targets),
        any(t.checkpoint_id is None for t in targets),
        len(examples),
        args.samples,
        sampling,
        str(job.get("baseModel") or "") or None,
        ((judge or {}).get("autoraterConfig") or {}).get("autoraterModel") if judge else None,
        assumptions,
    )
    limit = args.max_cost if args.max_cost is not None else (None if local else DEFAULT_MAX_COST)
    say(
        f"eval: {len(targets)} models x {len(examples)} prompts x {args.samples} samples = "
        f"{the_plan.tuned_calls + the_plan.base_calls:,} generations and {the_plan.judge_calls:,} judge "
        f"calls; on Google ${the_plan.cost.low:,.2f} to ${the_plan.cost.high:,.2f} (prices as of "
        f"{the_plan.prices_as_of})" + (" — the local emulator bills nothing" if local else "")
    )
    if limit is not None and the_plan.cost.high > limit:
        raise TunifolkError(
            f"eval would cost up to ${the_plan.cost.high:,.2f} on Google, over --max-cost {limit:g}: pass "
            f"--max-cost {math.ceil(the_plan.cost.high)}, or fewer --samples, --limit or --checkpoints"
        )
    draw = Draw(args, weights, judge)
    try:
        samples = draw_all(draw, targets, examples, args.samples, args.workers)
    finally:
        draw.close()
    results = ce.evaluate(targets, samples, args.seed, draw.failed)
    chosen = ce.best(results)
    service_best = job_metrics.best_checkpoint(job, metrics)
    notes = _notes(draw, judge, weights, len(samples))
    folder = args.out or ROOT / "build" / "eval" / job_id
    written = _keep(folder, samples, job_id)
    ledger_note = _to_ledger(args, name, job_id, samples)
    notes.append(ledger_note)
    report = ce.markdown(name, results, chosen, service_best, the_plan, notes)
    (folder / "report.md").write_text(report, encoding="utf-8")
    _plot(folder / "checkpoints.png", results, chosen, metrics)
    if args.json:
        doc = {
            "job": name,
            "best": chosen.as_dict() if chosen else None,
            "service_best": service_best,
            "checkpoints": [r.as_dict() for r in results],
            "weights": {"structure": weights.structure, "judge": weights.judge if judge else 0.0},
            "plan": the_plan.as_dict(),
            "judge_errors": draw.judge_errors,
            "report": str(folder / "report.md"),
            "samples_file": str(written),
            "ledger": ledger_note,
        }
        print(json.dumps(doc, indent=2))
    else:
        table = Table(*ce.HEADER, title=f"checkpoints of {job_id}")
        for row in ce.table_rows(results, chosen):
            table.add_row(*row)
        out.print(table)
        if chosen is not None:
            out.print(
                f"best: checkpoint {chosen.target.checkpoint_id} (step {chosen.target.step}); serve it "
                f"with `pulumi config set tunifolk:servingCheckpoint {chosen.target.checkpoint_id}` and "
                "`pulumi up`"
            )
        else:
            out.print("no checkpoint qualifies: every one failed or has a HACKING verdict")
        for note in notes:
            out.print(note)
        out.print(f"report: {folder / 'report.md'}, plot: {folder / 'checkpoints.png'}")
    return 0 if chosen is not None else PROBLEM


def _snake(hp: dict[str, Any]) -> dict[str, Any]:
    """The job's hyperParameters under the field table's names (what `estimate` reads)."""
    return {"thinking_level": hp.get("thinkingLevel")} if hp.get("thinkingLevel") else {}


def _notes(draw: Draw, judge: dict[str, Any] | None, weights: ce.Weights, n: int) -> list[str]:
    notes = []
    if judge is None:
        notes.append("without the judge: the combined reward is the structure reward")
    elif draw.judge_errors:
        notes.append(
            f"the judge gave no usable answer for {draw.judge_errors} of {n} samples (left out of its figure)"
        )
    if weights.structure == 0:
        notes.append("the job has no Cloud Run reward: the structure reward is shown, not combined")
    return notes


def _keep(folder: Path, samples: list[ce.Sample], job_id: str) -> Path:
    """samples.jsonl: every sample as a ledger record with its model and judge, whatever the ledger does."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "samples.jsonl"
    with path.open("wb") as f:
        for s in samples:
            f.write(
                orjson.dumps(
                    {"model": s.target, "judge": s.judge, "combined": s.combined, **_record(s, job_id)}
                )
                + b"\n"
            )
    return path


def _record(s: ce.Sample, job_id: str) -> dict[str, Any]:
    r = s.rollout(job_id)
    return {**r.as_json(), record_fields.SCORER_VERSION: record_fields.VERSION}


def _to_ledger(args: argparse.Namespace, name: str, job_id: str, samples: list[ce.Sample]) -> str:
    """Add the samples to the job's ledger under the eval label; a failure is a note, not an error
    (the samples are in samples.jsonl)."""
    if not samples:
        return "no samples for the ledger"
    try:
        reader = LedgerReader(name.split("/")[1], context.ledger_dataset(args), client=context.client())
        n = reader.insert([_record(s, job_id) for s in samples], names.EVAL_LABEL)
    except (TunifolkError, *CALL_ERRORS) as exc:
        return f"samples not added to the rollout ledger ({_one_line(exc)}); they are in samples.jsonl"
    return f"{n:,} samples added to the rollout ledger: `tunifolk rollouts --job {job_id} --eval`"


def _plot(
    path: Path, results: list[ce.Result], chosen: ce.Result | None, metrics: job_metrics.Metrics | None
) -> None:
    """Combined reward per checkpoint with its interval, the base model as a band, the service's own
    eval curve beside them; HACKING checkpoints crossed, the best starred."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
    shown = [r for r in results if ce.COMBINED in r.figures]
    points = [r for r in shown if r.target.checkpoint_id is not None]
    if points:
        xs = [r.target.step for r in points]
        ys = [r.figures[ce.COMBINED].mean for r in points]
        err = [
            [r.figures[ce.COMBINED].mean - r.figures[ce.COMBINED].low for r in points],
            [r.figures[ce.COMBINED].high - r.figures[ce.COMBINED].mean for r in points],
        ]
        ax.errorbar(xs, ys, yerr=err, fmt="o-", capsize=4, label="held-out combined reward (95% CI)")
        for r in points:
            if r.hacking:
                ax.plot(r.target.step, r.figures[ce.COMBINED].mean, "rx", markersize=14)
        if chosen is not None:
            ax.plot(
                chosen.target.step,
                chosen.figures[ce.COMBINED].mean,
                "*",
                color="gold",
                markersize=18,
                label="best",
            )
    for r in shown:
        if r.target.checkpoint_id is None:
            i = r.figures[ce.COMBINED]
            ax.axhspan(i.low, i.high, color="grey", alpha=0.2, label="base model (95% CI)")
    series = metrics.values("/eval_mean_reward") if metrics else []
    if series:
        ax.plot(
            [p.step for p in series],
            [p.value for p in series],
            "--",
            color="tab:orange",
            label="service's eval reward",
        )
    ax.set_xlabel("step")
    ax.set_ylabel("reward")
    ax.legend(loc="best", fontsize="small")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
