"""Reward computation: real HTTP calls to Cloud Run scorers, a stand-in judge, and the small scorers.

Used both by `tuningJobs:validateReinforcementTuningReward` and by every training step. The rules
follow the service as documented and as the seed observed:
- Cloud Run: one POST per (example, response) with `{"example", "response", "metadata"}` and an
  identity token naming the caller (`tunifolk.invoker`: the tuning agent, or the job's
  `serviceAccount`), which the stand-in's Cloud Run checks against the service's invoker grants; any
  transport error or non-200 (a 403 while a grant propagates) is retried after 2, 4, 8, 16, 32 s
  (times the local `time_scale`), then the reward is NaN (an RPC error whose code is the service's
  last HTTP status as google/rpc/code.proto maps it: 403 PERMISSION_DENIED, 401 UNAUTHENTICATED;
  UNCONFIRMED that Vertex's code says which; under the hostile reading `invoker-nan`, a 403 is a bare
  NaN with no code at all, hostile.py). A 200 without a numeric `reward` is an invalid response:
  NaN, not retried.
- Autorater: `autoraterConfig.autoraterModel` missing → "Missing autorater model in the
  autorater_config" and NaN; a bare model name → an internal error for that reward; a judge that
  is not available in its region → NOT_FOUND. The judge itself is `policy.judge_score`, no LLM: it
  writes its answer as the prompt asks (`judge_answer`: inside the prompt's tags, with a reason before
  them), Google's stage 1 parses it (`autoraterResponseParseConfig`, REGEX_EXTRACT keeps the last
  match), and the conversion scorer reads the parsed text as a float: a prompt that asks for tags
  without a REGEX_EXTRACT parse errors every call, as on Vertex (the reward-functions guide's example
  pairs such a prompt with that parse; the error's wording is UNCONFIRMED).
- Code execution: opt-in (`--allow-code-execution`), each call in a subprocess with a time limit
  (`code_execution`); a snippet that raises or runs out of time is NaN, a code failure.
- Every reward is clipped to [-1, 1]; the clip is counted for the clipping-ratio metric.
"""

from __future__ import annotations

import asyncio
import json
import math
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson

from tunifolk.invoker import LOCAL_TIME_SCALE, REWARD_BACKOFF_S, fake_id_token, tune_agent
from tunifolk.job.judge import answer_tag, content_text, parse_answer
from tunifolk.job.names import local_project_number

from . import code_execution, policy, protojson
from .hostile import Hostile
from .limits import CODE_TIMEOUT_S, DEFAULT_SAMPLING_COUNT, SAMPLING_COUNT_RANGE

BACKOFF_S = REWARD_BACKOFF_S
PUBLISHER_MODEL = re.compile(r"^projects/([^/]+)/locations/([^/]+)/publishers/([^/]+)/models/([^/]+)$")
ENDPOINT_MODEL = re.compile(r"^projects/([^/]+)/locations/([^/]+)/endpoints/([^/]+)$")

# google.rpc.Code values used in errorStatus.
INVALID_ARGUMENT, NOT_FOUND, PERMISSION_DENIED, INTERNAL, UNAVAILABLE, UNAUTHENTICATED = 3, 5, 7, 13, 14, 16


@dataclass
class Outcome:
    """The result of one reward invocation, with what the metrics need to know about it."""

    reward: float
    aux: str | None = None
    error: tuple[int, str] | None = None
    rpc_error: bool = False
    invalid: bool = False
    clipped: bool = False
    code_failure: bool = False
    latency_s: float = 0.0

    @property
    def errored(self) -> bool:
        return math.isnan(self.reward)


@dataclass
class RewardSettings:
    """Command-line knobs for reward calls."""

    #: Factor on every modelled delay (`--time-scale`): the retry backoff here, as the stand-in's
    #: IAM propagation and the provider's waits for it (`tunifolk.invoker`).
    time_scale: float = LOCAL_TIME_SCALE
    timeout_s: float = 30.0
    judges: dict[str, set[str]] = field(default_factory=dict)
    #: Whether request code (`codeExecutionRewardScorer`) may run at all (`--allow-code-execution`).
    allow_code_execution: bool = False
    code_timeout_s: float = CODE_TIMEOUT_S


def caller_of(project: str, service_account: str | None = None) -> str:
    """Whom Vertex calls a Cloud Run reward as: the job's `serviceAccount` when it sets one (the
    identity its workload runs as; that it also calls the reward is UNCONFIRMED), else the project's
    Secure Fine-Tuning Service Agent, named by the project's number as Google names agents."""
    return service_account or tune_agent(local_project_number(project))


def kind_of(cfg: dict[str, Any]) -> str:
    for key, kind in (
        ("cloudRunRewardScorer", "cloud_run"),
        ("autoraterScorer", "autorater"),
        ("codeExecutionRewardScorer", "code_execution"),
        ("stringMatchRewardScorer", "string_match"),
    ):
        if key in cfg:
            return kind
    return "unknown"


def response_text(content: dict[str, Any]) -> str:
    """The non-thought text of a Content: what a poem reward should judge (`judge.content_text`)."""
    return content_text(content)


def parse_response(cfg: dict[str, Any], content: dict[str, Any]) -> dict[str, Any]:
    """Stage 1 of a reward: IDENTITY passes the Content on; REGEX_EXTRACT keeps the last match
    (`judge.parse_answer`, the one reading of Google's parse that `tunifolk eval` uses too)."""
    parse = cfg.get("parseResponseConfig") or {}
    if parse.get("parseType") != "REGEX_EXTRACT":
        return content
    text = parse_answer(response_text(content), parse)
    return {"role": content.get("role", "model"), "parts": [{"text": text}]}


def substitute(expression: str, example: dict[str, Any]) -> str:
    refs = example.get("references") or {}
    return re.sub(
        r"\{\{\s*references\.([A-Za-z0-9_]+)\s*\}\}", lambda m: str(refs.get(m.group(1), "")), expression
    )


def judge_answer(word: str, tag: str | None, prose: bool) -> str:
    """What the stand-in judge writes: a reason, then its answer inside the tags the prompt asks for,
    else the answer alone (or, when `prose`, inside a sentence). A real judge is a model that follows
    the prompt about as far; Google then parses the answer (autoraterResponseParseConfig)."""
    if tag:
        return f"The imagery holds and the theme is kept. <{tag}>{word}</{tag}>"
    return f"I rate this poem {word}." if prose else word


class RewardCaller:
    """Computes rewards; holds the shared HTTP client and records every outgoing reward call."""

    def __init__(
        self,
        client: httpx.AsyncClient,
        settings: RewardSettings,
        record: Callable[[dict[str, Any]], None],
        hostile: Hostile | None = None,
    ) -> None:
        self.client = client
        self.settings = settings
        self.record = record
        self.hostile = hostile or Hostile()

    async def score(
        self,
        cfg: dict[str, Any],
        example: dict[str, Any],
        content: dict[str, Any],
        metadata: dict[str, Any],
        location: str,
        fail_rng: random.Random | None = None,
        fail_rate: float = 0.0,
        identity: str = "",
    ) -> Outcome:
        """Run one reward on one response as `identity` (the email a Cloud Run reward is called as);
        never raises (errors become NaN outcomes)."""
        t0 = time.perf_counter()
        parsed = parse_response(cfg, content)
        kind = kind_of(cfg)
        try:
            if kind == "cloud_run":
                forced_failure = fail_rng is not None and fail_rng.random() < fail_rate
                out = await self._cloud_run(cfg, example, parsed, metadata, forced_failure, identity)
            elif kind == "autorater":
                out = self._autorater(cfg, example, parsed, location)
            elif kind == "string_match":
                out = self._string_match(cfg, example, parsed)
            elif kind == "code_execution":
                out = await self._code_execution(cfg, example, parsed)
            else:
                out = Outcome(math.nan, error=(INVALID_ARGUMENT, "No reward scorer configured"))
        except Exception as e:  # a bug in a scorer must not take the server down
            out = Outcome(math.nan, error=(INTERNAL, f"Internal error occurred for computing reward: {e}"))
        if not math.isnan(out.reward) and abs(out.reward) > 1.0:
            out.reward = max(-1.0, min(1.0, out.reward))
            out.clipped = True
        out.latency_s = time.perf_counter() - t0
        return out

    async def _cloud_run(
        self,
        cfg: dict[str, Any],
        example: dict[str, Any],
        parsed: dict[str, Any],
        metadata: dict[str, Any],
        forced_failure: bool,
        identity: str,
    ) -> Outcome:
        uri = cfg["cloudRunRewardScorer"]["cloudRunUri"]
        body = {"example": example, "response": parsed, "metadata": metadata}
        payload = orjson.dumps(body)
        token = fake_id_token(identity or "unknown-caller", uri)
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        last = "no attempt"
        for attempt in range(len(BACKOFF_S) + 1):
            if attempt:
                await asyncio.sleep(BACKOFF_S[attempt - 1] * self.settings.time_scale)
            entry: dict[str, Any] = {
                "uri": uri,
                "attempt": attempt + 1,
                "authorization": headers["Authorization"],
                "body": body,
            }
            if forced_failure:
                last = "injected failure (--reward-fail-rate)"
                entry["status"] = None
                entry["error"] = last
                self.record(entry)
                continue
            try:
                r = await self.client.post(
                    uri, content=payload, headers=headers, timeout=self.settings.timeout_s
                )
            except httpx.HTTPError as e:
                last = f"{type(e).__name__}: {e}"
                entry["status"] = None
                entry["error"] = last
                self.record(entry)
                continue
            entry["status"] = r.status_code
            self.record(entry)
            if r.status_code != 200:
                last = f"HTTP {r.status_code}"
                continue
            try:
                data = r.json()
            except (json.JSONDecodeError, ValueError):
                data = None
            reward = protojson.parse_float(data.get("reward")) if isinstance(data, dict) else None
            if reward is None or math.isnan(reward):
                return Outcome(
                    math.nan,
                    invalid=True,
                    error=(INVALID_ARGUMENT, f"Invalid response from the Cloud Run reward service {uri}"),
                )
            aux = data.get("user_requested_aux_info")
            return Outcome(reward, aux=aux if isinstance(aux, str) else None)
        if last == "HTTP 403" and self.hostile.invoker_nan:
            # Hostile reading (hostile.py, `invoker-nan`): Google's troubleshooting note for a Cloud Run
            # reward without run.invoker names only the symptom, NaN rewards, and no status code
            # (https://docs.cloud.google.com/gemini-enterprise-agent-platform/models/tuning/reinforcement-tuning/reinforcement-tuning-job/reward-functions);
            # so: a bare NaN, no errorStatus for a client to read PERMISSION_DENIED from. Still an
            # errored rollout (an RPC error) during a job.
            return Outcome(math.nan, rpc_error=True)
        if last == "HTTP 403":  # Cloud Run's answer to a caller without run.invoker (or not yet)
            return Outcome(
                math.nan,
                rpc_error=True,
                error=(
                    PERMISSION_DENIED,
                    f"Permission denied calling the Cloud Run reward service {uri} ({last}) as "
                    f"{identity or 'an unknown caller'}: it needs roles/run.invoker on the service (a "
                    "fresh grant takes minutes to apply)",
                ),
            )
        if last == "HTTP 401":  # a token Cloud Run cannot accept (malformed, another audience)
            return Outcome(
                math.nan,
                rpc_error=True,
                error=(
                    UNAUTHENTICATED,
                    f"The Cloud Run reward service {uri} did not accept the caller's identity token "
                    f"({last}) as {identity or 'an unknown caller'}",
                ),
            )
        return Outcome(
            math.nan,
            rpc_error=True,
            error=(UNAVAILABLE, f"Failed to call the Cloud Run reward service {uri} after retries: {last}"),
        )

    def _autorater(
        self, cfg: dict[str, Any], example: dict[str, Any], parsed: dict[str, Any], location: str
    ) -> Outcome:
        scorer = cfg["autoraterScorer"]
        conf = scorer.get("autoraterConfig") or {}
        model = conf.get("autoraterModel")
        if not model:
            return Outcome(
                math.nan, error=(INVALID_ARGUMENT, "Missing autorater model in the autorater_config")
            )
        m = PUBLISHER_MODEL.match(model)
        if not m and not ENDPOINT_MODEL.match(model):
            return Outcome(
                math.nan, rpc_error=True, error=(INTERNAL, "Internal error occurred for computing reward")
            )
        if m:
            region, name = m.group(2), m.group(4)
            if name not in self.settings.judges.get(region, set()):
                return Outcome(
                    math.nan,
                    rpc_error=True,
                    error=(
                        NOT_FOUND,
                        f"Publisher Model `{model}` was not found "
                        "or your project does not have access to it.",
                    ),
                )
        text = response_text(parsed)
        low, high = SAMPLING_COUNT_RANGE
        n = max(low, min(high, int(conf.get("samplingCount") or DEFAULT_SAMPLING_COUNT)))
        tag = answer_tag(scorer.get("autoraterPrompt"))
        parse = {"parseResponseConfig": scorer.get("autoraterResponseParseConfig") or {}}
        values = []
        for i in range(n):  # each sample: the judge writes an answer, Google parses it, then scores it
            score = policy.judge_score(text, salt=i)
            word = ("Yes" if score > 0 else "No") if "exactMatchScorer" in scorer else f"{score:.3f}"
            answer = judge_answer(word, tag, self.hostile.judge_prose)
            got = response_text(parse_response(parse, {"parts": [{"text": answer}]})).strip()
            if "exactMatchScorer" in scorer:
                em = scorer["exactMatchScorer"]
                ok = got == substitute(em.get("expression", ""), example).strip()
                reward = protojson.parse_float(
                    em.get("correctAnswerReward" if ok else "wrongAnswerReward", 0.0)
                )
                values.append(reward if reward is not None else 0.0)
                continue
            try:
                values.append(float(got))
            except ValueError:  # the conversion scorer reads the parsed answer as the reward
                return Outcome(
                    math.nan,
                    error=(
                        INVALID_ARGUMENT,
                        f"Failed to convert the parsed autorater response {got[:80]!r} to a float",
                    ),
                )
        return Outcome(sum(values) / len(values))

    def _string_match(self, cfg: dict[str, Any], example: dict[str, Any], parsed: dict[str, Any]) -> Outcome:
        sm = cfg["stringMatchRewardScorer"]
        target = response_text(parsed)
        expr = sm.get("stringMatchExpression")
        if "jsonMatchExpression" in sm:
            jm = sm["jsonMatchExpression"]
            try:
                doc = json.loads(target)
            except json.JSONDecodeError:
                doc = None
            target = str(doc.get(jm.get("keyName", ""), "")) if isinstance(doc, dict) else ""
            expr = jm.get("valueStringMatchExpression")
        expr = expr or {}
        op = expr.get("matchOperation", "MATCH_OPERATION_UNSPECIFIED")
        expression = substitute(expr.get("expression", ""), example)
        if op == "REGEX_CONTAINS":
            ok = re.search(expression, target) is not None
        elif op == "PARTIAL_MATCH":
            ok = expression in target
        elif op == "EXACT_MATCH":
            ok = expression == target
        else:
            return Outcome(math.nan, error=(INVALID_ARGUMENT, "match_operation must be specified"))
        value = protojson.parse_float(sm.get("correctAnswerReward" if ok else "wrongAnswerReward", 0.0))
        return Outcome(value if value is not None else 0.0)

    async def _code_execution(
        self, cfg: dict[str, Any], example: dict[str, Any], parsed: dict[str, Any]
    ) -> Outcome:
        """Runs `evaluate(example, response)` in a subprocess (`code_execution`), if allowed at all."""
        if not self.settings.allow_code_execution:  # create and validation refuse it first; never run
            off = f"Code execution is off: start the emulator with {code_execution.FLAG}"
            return Outcome(math.nan, code_failure=True, error=(INVALID_ARGUMENT, off))
        snippet = cfg["codeExecutionRewardScorer"].get("pythonCodeSnippet", "")
        try:
            value = await code_execution.run(snippet, example, parsed, self.settings.code_timeout_s)
        except code_execution.CodeFailure as e:
            failed = f"Code execution failed: {e}"
            return Outcome(math.nan, code_failure=True, error=(INVALID_ARGUMENT, failed))
        return Outcome(value)
