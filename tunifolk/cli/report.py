"""The report on a run that `tunifolk status` prints and `tunifolk demo` writes.

GetTuningJob says almost nothing about progress, so the report is built from the job *and* its
metric series: the live step (last logged step + 1 while running), the curves that matter as
sparklines, the health verdicts with their numbers, and the checkpoints with their eval reward.
`build_report` is pure; the renderers (terminal, JSON, Markdown, PNG) only format it.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rich.table import Table
from rich.text import Text

from tunifolk import health
from tunifolk import metrics as job_metrics
from tunifolk import operations as ops
from tunifolk.cli import context, untrusted
from tunifolk.job.limits import FAILED_STATES
from tunifolk.ledger.watching import LedgerWatch

BARS = "▁▂▃▄▅▆▇█"


# --------------------------------------------------------------------------- the report (pure)


def curve_names(metrics: job_metrics.Metrics) -> list[str]:
    """The series worth watching for this reward design (the seed's list), in a stable order."""
    rewards = metrics.reward_names()
    names = ["/train_mean_reward", "/eval_mean_reward"]
    names += [f"{r}/train_mean_reward" for r in rewards]
    names += ["/train_generation_length", "/learnable_prompt_ratio"]
    names += [f"{r}/train_rpc_error_ratio" for r in rewards]
    names += [f"{r}/train_clipping_rewards_ratio" for r in rewards]
    return [n for n in names if metrics.values(n)]


@dataclass
class Report:
    name: str
    state: str
    detail: str | None
    live_step: int
    completed_steps: int
    total_steps: int | None
    error: str | None
    curves: dict[str, list[tuple[int, float]]] = field(default_factory=dict)
    verdicts: list[health.Verdict] = field(default_factory=list)
    checkpoints: list[dict[str, Any]] = field(default_factory=list)
    best_checkpoint: dict[str, Any] | None = None
    endpoint: str | None = None
    dropped: list[dict[str, Any]] = field(default_factory=list)
    http_calls: int = 0

    @property
    def unhealthy(self) -> bool:
        return self.state in FAILED_STATES or health.unhealthy(self.verdicts)


def build_report(
    job: dict[str, Any],
    metrics: job_metrics.Metrics | None,
    calls: int = 0,
    tripwires: list[health.Verdict] | None = None,
) -> Report:
    """The report; `tripwires` (the rollout ledger's verdicts, tunifolk/tripwires.py) join the
    metric verdicts."""
    hp = (job.get("reinforcementTuningSpec") or {}).get("hyperParameters") or {}
    cap = int(hp["maxOutputTokens"]) if "maxOutputTokens" in hp else None
    curves, verdicts, checkpoints = {}, [], job_metrics.checkpoints(job)
    if metrics is not None:
        curves = {n: [(p.step, p.value) for p in metrics.values(n)] for n in curve_names(metrics)}
        verdicts = health.verdicts(metrics, cap)
        for ckpt in checkpoints:
            ckpt["eval_reward"] = job_metrics.eval_reward_at(metrics, ckpt["step"])
    error = job.get("error")
    total = ops.total_steps({}, job)
    return Report(
        name=job["name"],
        state=job.get("state", "JOB_STATE_UNSPECIFIED"),
        detail=job.get("tuningJobState"),
        live_step=ops.live_step(job, metrics, total),
        completed_steps=job_metrics.completed_steps(job, metrics),
        total_steps=total,
        error=f"{error.get('message', '')} (code {error.get('code', 0)})" if error else None,
        curves=curves,
        verdicts=[*verdicts, *(tripwires or [])],
        checkpoints=checkpoints,
        best_checkpoint=job_metrics.best_checkpoint(job, metrics),
        endpoint=(job.get("tunedModel") or {}).get("endpoint"),
        dropped=dropped_examples(job),
        http_calls=calls,
    )


def dropped_examples(job: dict[str, Any]) -> list[dict[str, Any]]:
    """The training examples the service dropped, as it reports a sample of them
    (`tuningDataStats.reinforcementTuningDataStats.droppedExampleIndices` and `droppedExampleReasons`,
    the discovery document's DatasetStats: indices start from 1): `[{index, reason}]`."""
    stats = ((job.get("tuningDataStats") or {}).get("reinforcementTuningDataStats")) or {}
    indices = stats.get("droppedExampleIndices") or []
    reasons = stats.get("droppedExampleReasons") or []
    return [
        {"index": int(i), "reason": str(reasons[k]) if k < len(reasons) else ""}
        for k, i in enumerate(indices)
        if str(i).lstrip("-").isdigit()
    ]


def sparkline(values: list[float], width: int = 40) -> str:
    """Values as block characters, resampled to at most `width` buckets (bucket means)."""
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        return ""
    buckets = [values[i * len(values) // width : (i + 1) * len(values) // width] for i in range(width)]
    means = [sum(b) / len(b) for b in buckets if b] if len(values) > width else values
    low, high = min(finite), max(finite)
    span = (high - low) or 1.0
    return "".join(
        BARS[min(len(BARS) - 1, int((m - low) / span * len(BARS)))] if math.isfinite(m) else " "
        for m in means
    )


# --------------------------------------------------------------------------- renderers


def _step_text(report: Report) -> str:
    return f"{report.live_step}/{report.total_steps or '?'}"


def render_terminal(report: Report) -> list[Any]:
    """Rich renderables: a heading, the curves, the verdicts and the checkpoints."""
    head = Table.grid(padding=(0, 2))
    head.add_row("job", report.name)
    head.add_row("state", report.state + (f" ({report.detail})" if report.detail else ""))
    head.add_row(
        "step",
        _step_text(report) + ("  (live step: last logged + 1)" if report.state.endswith("RUNNING") else ""),
    )
    if report.error:
        head.add_row("error", untrusted.text(report.error, style="red"))
    if report.endpoint:
        head.add_row("endpoint", report.endpoint)
    if report.dropped:
        head.add_row("dropped", untrusted.text(_dropped_text(report.dropped), style="yellow"))
    curves = Table(title="curves")
    for column in ("series", "first", "last", "trend"):
        curves.add_column(column, no_wrap=True)
    for name, points in report.curves.items():
        values = [v for _, v in points]
        curves.add_row(name, f"{values[0]:.3f}", f"{values[-1]:.3f}", sparkline(values))
    verdicts = Table(title="health")
    for column in ("rule", "verdict", "why"):
        verdicts.add_column(column, overflow="fold")
    colours = {health.OK: "green", health.WARN: "yellow", health.FAIL: "red"}
    for v in report.verdicts:
        verdicts.add_row(v.rule, Text(v.level, style=colours[v.level]), untrusted.text(v.message))
    ckpts = Table(title="checkpoints")
    for column in ("id", "step", "epoch", "eval reward", "endpoint"):
        ckpts.add_column(column, no_wrap=True)
    best_id = (report.best_checkpoint or {}).get("checkpoint_id")
    for c in report.checkpoints:
        reward = "" if c.get("eval_reward") is None else f"{c['eval_reward']:.3f}"
        marker = " ★ best" if c["checkpoint_id"] == best_id else ""
        ckpts.add_row(c["checkpoint_id"] + marker, str(c["step"]), str(c["epoch"]), reward, c["endpoint"])
    return [head, curves, verdicts, ckpts]


def render_markdown(report: Report) -> str:
    lines = [f"# {report.name}", "", f"- state: {report.state}", f"- step: {_step_text(report)}"]
    if report.error:
        lines.append(f"- error: {untrusted.inline(report.error)}")
    if report.dropped:
        lines.append(f"- dropped: {untrusted.inline(_dropped_text(report.dropped))}")
    if report.endpoint:
        lines.append(f"- endpoint: `{report.endpoint}`")
    lines += ["", "## Curves", "", "| series | first | last | trend |", "|---|---|---|---|"]
    for name, points in report.curves.items():
        values = [v for _, v in points]
        lines.append(f"| `{name}` | {values[0]:.3f} | {values[-1]:.3f} | {sparkline(values)} |")
    lines += ["", "## Health", "", "| rule | verdict | why |", "|---|---|---|"]
    lines += [f"| {v.rule} | {v.level} | {untrusted.inline(v.message)} |" for v in report.verdicts]
    lines += ["", "## Checkpoints", "", "| id | step | eval reward | endpoint |", "|---|---|---|---|"]
    for c in report.checkpoints:
        reward = "" if c.get("eval_reward") is None else f"{c['eval_reward']:.3f}"
        lines.append(f"| {c['checkpoint_id']} | {c['step']} | {reward} | `{c['endpoint']}` |")
    if report.best_checkpoint:
        lines += [
            "",
            f"Best checkpoint: {report.best_checkpoint['checkpoint_id']} "
            f"(eval reward {report.best_checkpoint['eval_reward']:.3f})",
        ]
    lines += ["", f"Read with {report.http_calls} HTTP calls.", ""]
    return "\n".join(lines)


def _dropped_text(dropped: list[dict[str, Any]], shown: int = 3) -> str:
    """'N examples dropped (a sample), first: line I: reason; …'."""
    first = "; ".join(f"line {d['index']}: {d['reason'] or 'no reason given'}" for d in dropped[:shown])
    return f"{len(dropped)} training examples dropped by the service (a sample); first: {first}"


def render_json(report: Report) -> str:
    data = _finite(asdict(report))
    data["unhealthy"] = report.unhealthy
    return json.dumps(data, indent=2, allow_nan=False, ensure_ascii=False)


def _finite(value: Any) -> Any:
    """JSON has no NaN: a non-finite number (an all-errored reward mean) becomes null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def plot(report: Report, path: Path) -> None:
    """The curves, one panel each, to a PNG (matplotlib, no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(report.curves)
    rows = max(1, math.ceil(len(names) / 2))
    fig, axes = plt.subplots(rows, 2, figsize=(11, 2.6 * rows), squeeze=False)
    for ax, name in zip(axes.flat, names, strict=False):
        steps, values = zip(*report.curves[name], strict=True)
        ax.plot(steps, values, linewidth=1.4)
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("step", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(names) :]:
        ax.axis("off")
    fig.suptitle(f"{report.name.rsplit('/', 1)[-1]} — {report.state}", fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def read_report(name: str, dataset: str) -> Report:
    """The job, its metrics and the trip wires over its rollout ledger (in `dataset`)."""
    with context.client() as client:
        job = client.get_tuning_job(name)
        metrics = ops.try_metrics(client, job)
        watch = LedgerWatch(client, name, dataset)
        watch.update()
        return build_report(job, metrics, client.calls, watch.verdicts(job, metrics))
