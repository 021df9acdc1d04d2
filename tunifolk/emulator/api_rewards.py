"""Routes of reward validation: `tuningJobs:validateReinforcementTuningReward`, and publisher models.

Validation scores one sample response with the same reward calls a training step makes
(`rewards.RewardCaller`), so a client can try its reward configs before it pays for a job. A
publisher model's `generateContent` answers only for the judge models available in the region
(`--judge-models`) and the RLFT base models: a client probes it to find out whether its autorater
will be found, and `tunifolk eval` calls it as the judge and as the untuned base model.
"""

from __future__ import annotations

import asyncio
import itertools
import math
import random
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response

from tunifolk.job.judge import answer_tag
from tunifolk.job.limits import RLFT_BASE_MODELS

from . import checks, code_execution, policy, protojson
from .responses import LOCATION, ApiError, RouteSpec, checked, json_response, read_body
from .rewards import caller_of, judge_answer
from .serving import generate_response, request_text
from .state import State


class RewardValidation:
    """validateReinforcementTuningReward (v1beta1 only) and the judge probe."""

    def __init__(self, state: State) -> None:
        self.state = state
        self._calls = itertools.count(1)

    def routes(self) -> list[RouteSpec]:
        return [
            ("POST", LOCATION + r"/tuningJobs:validateReinforcementTuningReward", self.validate, False),
            ("POST", LOCATION + r"/publishers/google/models/(?P<m>[^/:]+):generateContent", self.judge, True),
        ]

    async def validate(self, request: Request, p: str, l: str, **_: Any) -> Response:  # noqa: E741
        body = await read_body(request)
        try:
            body, rewards = checks.validate_request(body, l)
        except checks.BodyError as e:
            raise ApiError(400, str(e)) from None
        code_execution.refuse_unless_allowed(rewards, self.state.options.rewards.allow_code_execution)
        metadata = self.state.options.hostile.reward_metadata(0, "0")  # no job yet: step 0, job "0"
        # The request names no service account: the project's tuning agent calls (tunifolk.invoker).
        caller = caller_of(p)
        outs = await asyncio.gather(
            *(
                self.state.caller.score(
                    cfg, body["example"], body["sampleResponse"], metadata, l, identity=caller
                )
                for cfg, _ in rewards
            )
        )
        details: dict[str, Any] = {}
        messages: list[str] = []
        codes: list[int] = []
        total = total_w = 0.0
        any_nan = False
        for (cfg, weight), out in zip(rewards, outs, strict=True):
            name = cfg.get("rewardName", "")
            info: dict[str, Any] = {}
            protojson.put_float(info, "reward", out.reward)
            if out.aux:
                info["userRequestedAuxInfo"] = out.aux
            if out.error:
                info["errorStatus"] = {"code": out.error[0], "message": out.error[1]}
                messages.append(f"Error for reward [{name}]: {out.error[1]}")
                codes.append(out.error[0])
            details[name] = info
            if math.isnan(out.reward):
                any_nan = True
            else:
                total += weight * out.reward
                total_w += weight
        resp: dict[str, Any] = {}
        overall = math.nan if any_nan or not total_w else total / total_w
        protojson.put_float(resp, "overallReward", overall)
        # ProtoJSON drops empty messages and zeros: a single reward of exactly 0.0 with nothing
        # else to say comes back with neither overallReward nor rewardInfoDetails.
        if "compositeRewardConfig" in body or any(details.values()):
            resp["rewardInfoDetails"] = details
        if "compositeRewardConfig" in body:
            resp["rewardDetails"] = {
                cfg.get("rewardName", ""): protojson.number(o.reward)
                for (cfg, _), o in zip(rewards, outs, strict=True)
            }
        if messages:
            resp["errorStatus"] = {"code": codes[0], "message": "; ".join(messages)}
        return json_response(resp)

    async def judge(self, request: Request, p: str, l: str, m: str, **_: Any) -> Response:  # noqa: E741
        """A publisher model's generateContent: a judge model, or an RLFT base model (the reference an
        evaluation compares checkpoints with). A prompt that asks for its answer inside tags is a judge
        prompt: the stand-in judge (`policy.judge_score`) rates the poem the prompt quotes and answers
        the way the in-run judge does. Any other prompt gets a poem written at the run's start (an
        honest policy at progress 0: the base model before tuning)."""
        body = await read_body(request)
        body = checked(checks.GENERATE_REQUEST, body, "generate_content_request")
        if m not in self.state.options.rewards.judges.get(l, set()) and m not in RLFT_BASE_MODELS:
            raise ApiError(
                404,
                f"Publisher Model `projects/{p}/locations/{l}/publishers/google/models/{m}` was not found or "
                "your project does not have access to it. Please ensure you are using a valid model version.",
            )
        prompt = request_text(body)
        config = body.get("generationConfig") or {}
        draw = f"seed={config['seed']}" if isinstance(config.get("seed"), int) else str(next(self._calls))
        tag = answer_tag(prompt)
        if tag:
            poem_text = self.state.serving.written.quoted_in(prompt) or prompt
            score = policy.judge_score(poem_text, salt=policy.hash_text(draw) % 1000)
            answer = judge_answer(f"{score:.3f}", tag, self.state.options.hostile.judge_prose)
            poem = policy.Poem(text=answer, thought="", hacked=False, quality=1.0)
        else:
            rng = random.Random(policy.hash_text(f"{m}:{draw}:{prompt}"))
            poem = policy.generate(rng, 0.0, "honest", policy.references_from_prompt(prompt))
            self.state.serving.written.add(poem.text)
        return json_response(generate_response(poem, m, orjson.dumps(body).decode()))
