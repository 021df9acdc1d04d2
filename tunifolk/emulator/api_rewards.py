"""Routes of reward validation: `tuningJobs:validateReinforcementTuningReward` and the judge probe.

Validation scores one sample response with the same reward calls a training step makes
(`rewards.RewardCaller`), so a client can try its reward configs before it pays for a job. The
judge probe is a publisher model's `generateContent`, which answers only for the judge models
available in the region (`--judge-models`): what a client calls to find out whether its autorater
will be found.
"""

from __future__ import annotations

import asyncio
import math
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response

from . import checks, code_execution, policy, protojson
from .responses import LOCATION, ApiError, RouteSpec, checked, json_response, read_body
from .rewards import caller_of
from .serving import generate_response
from .state import State


class RewardValidation:
    """validateReinforcementTuningReward (v1beta1 only) and the judge probe."""

    def __init__(self, state: State) -> None:
        self.state = state

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
        body = await read_body(request)
        body = checked(checks.GENERATE_REQUEST, body, "generate_content_request")
        if m not in self.state.options.rewards.judges.get(l, set()):
            raise ApiError(
                404,
                f"Publisher Model `projects/{p}/locations/{l}/publishers/google/models/{m}` was not found or "
                "your project does not have access to it. Please ensure you are using a valid model version.",
            )
        poem = policy.Poem(text="Hello! I am ready to judge.", thought="", hacked=False, quality=1.0)
        return json_response(generate_response(poem, m, orjson.dumps(body).decode()))
