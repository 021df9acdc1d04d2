"""HTTP routes of the emulator: the Vertex `v1beta1` subset (docs/vertex.md) in Google's shapes.

One catch-all route dispatches on regular expressions over the resource path, because Google's
custom methods (`tuningJobs:validateReinforcementTuningReward`, `{job}:cancel`,
`{tensorboard}:batchRead`) do not fit a router's path segments. A path that matches nothing gets
Google's HTML 404 page (that is what the location-level validate path returns); a known path with
the wrong method gets the JSON 404 "Method not found." (that is what DELETE on a tuning job gets).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import math
import re
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from . import checks, policy, protojson
from .faults import FaultConfig, Faults
from .jobs import RLFT_LOCATIONS, TERMINAL, Job, JobSettings, JobStore
from .metrics import MAX_BATCH_READ, MetricsStore
from .rewards import RewardCaller, RewardSettings
from .serving import Serving

STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    404: "NOT_FOUND",
    409: "ALREADY_EXISTS",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}
HTML_404 = """<!DOCTYPE html>
<html lang=en>
  <meta charset=utf-8>
  <meta name=viewport content="initial-scale=1, minimum-scale=1, width=device-width">
  <title>Error 404 (Not Found)!!1</title>
  <a href=//www.google.com/><span id=logo aria-label=Google></span></a>
  <p><b>404.</b> <ins>That\u2019s an error.</ins>
  <p>The requested URL <code>{path}</code> was not found on this server.  <ins>That\u2019s all we know.</ins>
"""
HTML_502 = """<!DOCTYPE html>
<html lang=en>
  <meta charset=utf-8>
  <title>Error 502 (Server Error)!!1</title>
  <p><b>502.</b> <ins>That\u2019s an error.</ins>
  <p>The server encountered a temporary error and could not complete your request.
  <p>Please try again in 30 seconds.  <ins>That\u2019s all we know.</ins>
"""
MAX_REWARD_CALL_RECORDS = 50_000
P = r"projects/(?P<p>[^/:]+)/locations/(?P<l>[^/:]+)"
TB = P + r"/tensorboards/(?P<tb>[^/:]+)"
RUN = TB + r"/experiments/(?P<e>[^/:]+)/runs/(?P<r>[^/:]+)"
LABEL_TERM = re.compile(r'^labels\.([A-Za-z0-9_-]+)\s*=\s*(?:"([^"]*)"|([^\s"]+))$')
STATE_TERM = re.compile(r'^state\s*=\s*"?(JOB_STATE_[A-Z_]+)"?$')


class ApiError(Exception):
    """An error answered in Google's JSON shape."""

    def __init__(self, code: int, message: str, status: str | None = None, headers: dict | None = None):
        super().__init__(message)
        self.code, self.message = code, message
        self.status = status or STATUS_NAMES.get(code, "UNKNOWN")
        self.headers = headers or {}


def json_response(body: Any, status: int = 200, headers: dict | None = None) -> Response:
    return Response(protojson.dumps(body), status_code=status, media_type="application/json", headers=headers)


def error_response(e: ApiError) -> Response:
    body = {"error": {"code": e.code, "message": e.message, "status": e.status}}
    return json_response(body, e.code, e.headers)


def html_response(page: str, status: int) -> Response:
    return Response(page, status_code=status, media_type="text/html; charset=UTF-8")


@dataclass
class ServingSettings:
    """How the serving side's long-running operations behave."""

    lro_seconds: float = 0.05
    lro_error_rate: float = 0.0
    lro_error_code: int = 13


@dataclass
class Options:
    """Everything the command line sets."""

    jobs: JobSettings = field(default_factory=JobSettings)
    faults: FaultConfig = field(default_factory=FaultConfig)
    rewards: RewardSettings = field(default_factory=RewardSettings)
    serving: ServingSettings = field(default_factory=ServingSettings)


Handler = Callable[..., Awaitable[Response]]


class Emulator:
    """State of one emulator process: jobs, metrics, serving resources, faults and request logs."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self.faults = Faults(options.faults)
        self.metrics = MetricsStore()
        self.serving = Serving(
            lro_seconds=options.serving.lro_seconds,
            lro_error_rate=options.serving.lro_error_rate,
            lro_error_code=options.serving.lro_error_code,
            seed=options.faults.seed,
        )
        self.counts: Counter[str] = Counter()
        self.reward_calls: list[dict[str, Any]] = []
        self.client: httpx.AsyncClient | None = None
        self.caller: RewardCaller | None = None
        self.store: JobStore | None = None
        self._fault_active = any(
            (
                options.faults.rate_503,
                options.faults.rate_429,
                options.faults.rate_html,
                options.faults.latency_ms,
            )
        )
        self.routes: list[tuple[str, re.Pattern[str], Handler, bool]] = []
        r = self._route
        r("POST", P + r"/tuningJobs", self.create_job)
        r("GET", P + r"/tuningJobs", self.list_jobs)
        r("GET", P + r"/tuningJobs/(?P<id>[^/:]+)", self.get_job)
        r("POST", P + r"/tuningJobs/(?P<id>[^/:]+):cancel", self.cancel_job)
        r("POST", P + r"/tuningJobs:validateReinforcementTuningReward", self.validate, v1=False)
        r("POST", P + r"/publishers/google/models/(?P<m>[^/:]+):generateContent", self.judge_probe)
        r("GET", P + r"/endpoints/(?P<e>[^/:]+)", self.get_endpoint)
        r("DELETE", P + r"/endpoints/(?P<e>[^/:]+)", self.delete_endpoint)
        r("POST", P + r"/endpoints/(?P<e>[^/:]+):generateContent", self.endpoint_generate)
        r("POST", P + r"/endpoints/(?P<e>[^/:]+):undeployModel", self.undeploy)
        r("GET", P + r"/models/(?P<m>[^/:]+)", self.get_model)
        r("DELETE", P + r"/models/(?P<m>[^/:]+)", self.delete_model)
        r("DELETE", P + r"/models/(?P<m>[^/:]+):deleteVersion", self.delete_version)
        r("GET", r"(?P<op>.+/operations/[^/:]+)", self.get_operation)
        r("GET", P + r"/metadataStores/default/contexts/(?P<c>[^/:]+)", self.get_context)
        r("GET", TB, self.get_tensorboard)
        r("GET", TB + r":batchRead", self.batch_read)
        r("GET", TB + r"/experiments", self.list_experiments)
        r("GET", TB + r"/experiments/(?P<e>[^/:]+)", self.get_experiment)
        r("GET", TB + r"/experiments/(?P<e>[^/:]+)/runs", self.list_runs)
        r("GET", RUN, self.get_run)
        r("GET", RUN + r"/timeSeries", self.list_series)
        r("GET", RUN + r"/timeSeries/(?P<ts>[^/:]+)", self.get_series)
        r("GET", RUN + r"/timeSeries/(?P<ts>[^/:]+):read", self.read_series)

    def _route(self, method: str, pattern: str, handler: Handler, v1: bool = True) -> None:
        self.routes.append((method, re.compile(pattern + "$"), handler, v1))

    # --- plumbing ----------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def lifespan(self, _app: Starlette) -> AsyncIterator[None]:
        limits = httpx.Limits(max_connections=200, max_keepalive_connections=100)
        self.client = httpx.AsyncClient(limits=limits)
        self.caller = RewardCaller(self.client, self.options.rewards, self._record_reward_call)
        self.store = JobStore(
            self.options.jobs, self.caller, self.metrics, self.serving, self.options.faults.seed
        )
        try:
            yield
        finally:
            for job in self.store.jobs.values():
                if job.task is not None:
                    job.task.cancel()
            await self.client.aclose()

    def _record_reward_call(self, entry: dict[str, Any]) -> None:
        if len(self.reward_calls) < MAX_REWARD_CALL_RECORDS:
            self.reward_calls.append(entry)

    def app(self) -> Starlette:
        methods = ["GET", "POST", "DELETE", "PATCH", "PUT"]
        return Starlette(
            routes=[
                Route("/healthz", self.healthz, methods=["GET"]),
                Route("/emulator/jobs", self.admin_jobs, methods=["GET"]),
                Route("/emulator/requests", self.admin_requests, methods=["GET"]),
                Route("/emulator/resources", self.admin_resources, methods=["GET"]),
                Route("/{version}/{rest:path}", self.api, methods=methods),
            ],
            lifespan=self.lifespan,
        )

    async def healthz(self, _request: Request) -> Response:
        return json_response({"status": "ok"})

    async def api(self, request: Request) -> Response:
        path = request.url.path
        self.counts[f"{request.method} {path}"] += 1
        self.serving.settle()  # long-running operations whose time has come finish first
        version = request.path_params["version"]
        rest = request.path_params["rest"]
        if self._fault_active:
            d = self.faults.draw()
            if d.latency_s:
                await asyncio.sleep(d.latency_s)
            if d.html:
                return html_response(HTML_502, 502)
            if d.status == 503:
                return error_response(ApiError(503, "The service is currently unavailable."))
            if d.status == 429:
                after = self.options.faults.retry_after
                return error_response(
                    ApiError(
                        429,
                        "Quota exceeded for aiplatform.googleapis.com/generate_content_requests_per_minute.",
                        headers={"Retry-After": f"{after:g}"},
                    )
                )
        if version not in ("v1beta1", "v1"):
            return html_response(HTML_404.format(path=path), 404)
        matched_path = False
        for method, rx, handler, v1_ok in self.routes:
            m = rx.match(rest)
            if not m or (version == "v1" and not v1_ok):
                continue
            matched_path = True
            if method != request.method:
                continue
            try:
                return await handler(request, rest=rest, v1=version == "v1", **m.groupdict())
            except ApiError as e:
                return error_response(e)
        if matched_path:
            return error_response(ApiError(404, "Method not found."))
        return html_response(HTML_404.format(path=path), 404)

    async def _body(self, request: Request) -> dict[str, Any]:
        raw = await request.body()
        if not raw:
            return {}
        try:
            body = orjson.loads(raw)
        except orjson.JSONDecodeError:
            raise ApiError(400, "Invalid JSON payload received. Unexpected token.") from None
        if not isinstance(body, dict):
            raise ApiError(400, "Invalid JSON payload received. Expected an object.")
        return body

    @staticmethod
    def _check(schema: Any, body: Any, where: str) -> Any:
        """The body with camelCase names (snake_case is accepted too), or a 400 as Google words it."""
        try:
            return checks.check(schema, body, where)
        except checks.BodyError as e:
            raise ApiError(400, str(e)) from None

    @staticmethod
    def _rlft_location(location: str) -> None:
        if location not in RLFT_LOCATIONS:
            raise ApiError(
                400,
                f"Reinforcement tuning is not available for your project or region: {location}. "
                f"Supported regions: {', '.join(RLFT_LOCATIONS)}.",
            )

    def _job(self, p: str, l: str, job_id: str) -> Job:  # noqa: E741
        assert self.store is not None
        job = self.store.jobs.get(job_id)
        if job is None or job.project != p or job.location != l:
            raise ApiError(
                404, f"The TuningJob projects/{p}/locations/{l}/tuningJobs/{job_id} does not exist."
            )
        return job

    # --- tuning jobs --------------------------------------------------------------------------

    async def create_job(self, request: Request, p: str, l: str, v1: bool, **_: Any) -> Response:  # noqa: E741
        assert self.store is not None
        body = await self._body(request)
        if v1 and "reinforcementTuningSpec" in body:
            raise ApiError(
                400,
                "Invalid JSON payload received. Unknown name \"reinforcementTuningSpec\" at 'tuning_job': "
                "Cannot find field.",
            )
        self._rlft_location(l)
        body = self._check(checks.TUNING_JOB, body, "tuning_job")
        other = sorted(k for k in body if k in checks.OTHER_SPECS)
        if other:
            raise ApiError(400, f"The emulator serves reinforcement tuning only; got {other[0]}.")
        spec = body.get("reinforcementTuningSpec")
        if not isinstance(spec, dict):
            raise ApiError(400, "reinforcement_tuning_spec is required.")
        try:
            checks.check_labels(body.get("labels"))
            rewards = checks.reward_configs(spec, "tuning_job.reinforcement_tuning_spec")
        except checks.BodyError as e:
            raise ApiError(400, str(e)) from None
        self._check_job_semantics(body, spec)
        fault = self.faults.take_create_fault()
        if fault == "before":
            raise ApiError(503, "The service is currently unavailable.")
        job = self.store.create(p, l, body, rewards)
        if fault == "after":
            raise ApiError(503, "The service is currently unavailable.")
        return json_response(job.public(self.options.jobs.report_progress, v1))

    @staticmethod
    def _check_job_semantics(body: dict[str, Any], spec: dict[str, Any]) -> None:
        """The create-time rules the service enforces with a 400 (not the ones it silently ignores)."""
        base, pre = body.get("baseModel"), body.get("preTunedModel")
        if base and pre:
            raise ApiError(400, "Only one of base_model or pre_tuned_model may be set.")
        if not base and not pre:
            raise ApiError(400, "base_model is required.")
        if pre and not pre.get("tunedModelName"):
            raise ApiError(400, "pre_tuned_model.tuned_model_name is required.")
        if not spec.get("trainingDatasetUri"):
            raise ApiError(400, "reinforcement_tuning_spec.training_dataset_uri is required.")
        for key in ("trainingDatasetUri", "validationDatasetUri"):
            uri = spec.get(key)
            if uri and not uri.startswith("gs://"):
                raise ApiError(
                    400, f"{checks.snake(key)} must be a Cloud Storage URI starting with gs://, got {uri}."
                )
        hp = spec.get("hyperParameters") or {}
        if "epochCount" in hp and "stepCount" in hp:
            raise ApiError(400, "epoch_count and step_count are mutually exclusive.")
        for key in ("epochCount", "stepCount", "batchSize", "samplesPerPrompt", "evaluateInterval"):
            if key in hp and (protojson.parse_int(hp[key]) or 0) <= 0:
                raise ApiError(400, f"hyper_parameters.{checks.snake(key)} must be positive.")
        if "checkpointInterval" in hp and (protojson.parse_int(hp["checkpointInterval"]) or 0) <= 0:
            raise ApiError(400, "hyper_parameters.checkpoint_interval must be positive.")
        lrm = protojson.parse_float(hp.get("learningRateMultiplier", 1.0))
        if lrm is None or not 0.25 <= lrm <= 4.0:
            raise ApiError(400, "hyper_parameters.learning_rate_multiplier must be in [0.25, 4].")
        batch = protojson.parse_int(hp.get("batchSize", 32)) or 32
        spp = protojson.parse_int(hp.get("samplesPerPrompt", 16)) or 16
        if (batch * spp) % 16 or batch * spp > 8192:
            raise ApiError(
                400,
                f"batch_size * samples_per_prompt ({batch * spp}) must be divisible by 16 and at most 8192.",
            )
        mot = hp.get("maxOutputTokens")
        if mot is not None and not 0 < (protojson.parse_int(mot) or 0) <= 32768:
            raise ApiError(400, "hyper_parameters.max_output_tokens must be in (0, 32768].")
        if "thinkingBudget" in hp and not str(base or "").startswith("gemini-2.5"):
            raise ApiError(400, f"thinking_budget is not supported for {base}; use thinking_level.")

    async def list_jobs(self, request: Request, p: str, l: str, v1: bool, **_: Any) -> Response:  # noqa: E741
        assert self.store is not None
        q = request.query_params
        wanted_labels: dict[str, str] = {}
        wanted_state = None
        flt = q.get("filter", "").strip()
        if flt:
            for term in re.split(r"\s+AND\s+", flt):
                term = term.strip()
                if m := LABEL_TERM.match(term):
                    if self.options.jobs.loose_list_filter:
                        continue  # a lax server: the label terms are accepted and ignored
                    wanted_labels[m.group(1)] = m.group(2) if m.group(2) is not None else m.group(3)
                elif m := STATE_TERM.match(term):
                    wanted_state = m.group(1)
                else:
                    raise ApiError(400, f"Unsupported filter: {term!r}.")
        try:
            size = int(q.get("pageSize") or 50)
        except ValueError:
            raise ApiError(400, "Invalid page_size.") from None
        size = min(max(size, 1) if size > 0 else 50, 100)
        offset = 0
        if token := q.get("pageToken"):
            try:
                offset = int(base64.urlsafe_b64decode(token.encode()).decode().removeprefix("offset:"))
            except ValueError:
                raise ApiError(400, "Invalid page_token.") from None
        jobs = [
            j
            for j in reversed(list(self.store.jobs.values()))
            if j.project == p
            and j.location == l
            and all((j.body.get("labels") or {}).get(k) == v for k, v in wanted_labels.items())
            and (wanted_state is None or j.state == wanted_state)
        ]
        page = jobs[offset : offset + size]
        out: dict[str, Any] = {}
        if page:
            out["tuningJobs"] = [j.public(self.options.jobs.report_progress, v1) for j in page]
        if offset + size < len(jobs):
            out["nextPageToken"] = base64.urlsafe_b64encode(f"offset:{offset + size}".encode()).decode()
        return json_response(out)

    async def get_job(self, _request: Request, p: str, l: str, id: str, v1: bool, **_: Any) -> Response:  # noqa: E741
        return json_response(self._job(p, l, id).public(self.options.jobs.report_progress, v1))

    async def cancel_job(self, _request: Request, p: str, l: str, id: str, **_: Any) -> Response:  # noqa: E741
        assert self.store is not None
        job = self._job(p, l, id)
        if job.state in TERMINAL:
            raise ApiError(
                400,
                f"Cannot cancel tuning job {job.name} in state {job.state}.",
                status="FAILED_PRECONDITION",
            )
        self.store.cancel(job)
        return json_response({})

    async def validate(self, request: Request, p: str, l: str, **_: Any) -> Response:  # noqa: E741
        assert self.caller is not None
        body = await self._body(request)
        self._rlft_location(l)
        body = self._check(checks.VALIDATE_REQUEST, body, "validate_reinforcement_tuning_reward_request")
        if "example" not in body:
            raise ApiError(400, "example is required.")
        if "sampleResponse" not in body:
            raise ApiError(400, "sample_response is required.")
        try:
            rewards = checks.reward_configs(body, "validate_reinforcement_tuning_reward_request")
        except checks.BodyError as e:
            raise ApiError(400, str(e)) from None
        metadata = {"step": 0, "tuning_job_id": "0"}
        outs = await asyncio.gather(
            *(
                self.caller.score(cfg, body["example"], body["sampleResponse"], metadata, l)
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

    # --- generation -----------------------------------------------------------------------------

    def _generate_response(self, poem: policy.Poem, model_version: str, seed_text: str) -> dict[str, Any]:
        prompt_tokens = max(1, len(seed_text) // 4)
        usage: dict[str, Any] = {
            "promptTokenCount": prompt_tokens,
            "candidatesTokenCount": poem.output_tokens,
            "totalTokenCount": prompt_tokens + poem.output_tokens + poem.thinking_tokens,
            "trafficType": "ON_DEMAND",
        }
        if poem.thinking_tokens:
            usage["thoughtsTokenCount"] = poem.thinking_tokens
        return {
            "candidates": [{"content": poem.content(include_thought=False), "finishReason": "STOP"}],
            "usageMetadata": usage,
            "modelVersion": model_version,
            "createTime": protojson.timestamp(time.time()),
            "responseId": f"{policy.hash_text(seed_text + str(time.time_ns())) % 10**16:x}",
        }

    async def judge_probe(self, request: Request, p: str, l: str, m: str, **_: Any) -> Response:  # noqa: E741
        body = await self._body(request)
        body = self._check(checks.GENERATE_REQUEST, body, "generate_content_request")
        if m not in self.options.rewards.judges.get(l, set()):
            raise ApiError(
                404,
                f"Publisher Model `projects/{p}/locations/{l}/publishers/google/models/{m}` was not found or "
                "your project does not have access to it. Please ensure you are using a valid model version.",
            )
        text = "Hello! I am ready to judge."
        poem = policy.Poem(text=text, thought="", hacked=False, quality=1.0)
        return json_response(self._generate_response(poem, m, orjson.dumps(body).decode()))

    async def endpoint_generate(self, request: Request, rest: str, **_: Any) -> Response:
        body = await self._body(request)
        body = self._check(checks.GENERATE_REQUEST, body, "generate_content_request")
        ep = self.serving.endpoints.get(rest.removesuffix(":generateContent"))
        if ep is None:
            raise ApiError(404, f"Endpoint `{rest.removesuffix(':generateContent')}` not found.")
        if not ep.deployed:
            raise ApiError(400, f"Endpoint `{ep.name}` has no deployed model.", status="FAILED_PRECONDITION")
        poem = ep.generate(body)
        return json_response(
            self._generate_response(poem, ep.deployed[0]["model"], orjson.dumps(body).decode())
        )

    # --- endpoints, models, operations -----------------------------------------------------------

    def _endpoint(self, name: str) -> Any:
        ep = self.serving.endpoints.get(name)
        if ep is None:
            raise ApiError(404, f"Endpoint `{name}` not found.")
        return ep

    async def get_endpoint(self, _request: Request, rest: str, **_: Any) -> Response:
        return json_response(self._endpoint(rest).resource())

    async def undeploy(self, request: Request, rest: str, **_: Any) -> Response:
        body = await self._body(request)
        body = self._check(checks.UNDEPLOY_REQUEST, body, "undeploy_model_request")
        ep = self._endpoint(rest.removesuffix(":undeployModel"))
        dm = body.get("deployedModelId")
        if not dm:
            raise ApiError(400, "deployed_model_id is required.")
        if not any(d["id"] == dm for d in ep.deployed):
            raise ApiError(404, f"DeployedModel {dm} not found in Endpoint `{ep.name}`.")

        def undeployed() -> None:
            ep.deployed = [d for d in ep.deployed if d["id"] != dm]

        op = self.serving.operation(
            ep.name,
            "UndeployModelOperationMetadata",
            {"@type": "type.googleapis.com/google.cloud.aiplatform.v1beta1.UndeployModelResponse"},
            undeployed,
        )
        return json_response(op)

    async def delete_endpoint(self, _request: Request, rest: str, p: str, l: str, **_: Any) -> Response:  # noqa: E741
        ep = self._endpoint(rest)
        if ep.deployed:
            raise ApiError(
                400,
                f"Endpoint `{ep.name}` has deployed models. "
                "Undeploy all models before deleting the endpoint.",
                status="FAILED_PRECONDITION",
            )
        return self._delete(p, l, lambda: self.serving.endpoints.pop(ep.name, None))

    def _delete(self, p: str, l: str, effect: Callable[[], object]) -> Response:  # noqa: E741
        """A delete's long-running operation in the location; `effect` runs when it finishes."""
        op = self.serving.operation(
            f"projects/{p}/locations/{l}",
            "DeleteOperationMetadata",
            {"@type": "type.googleapis.com/google.protobuf.Empty"},
            effect,
        )
        return json_response(op)

    def _model(self, p: str, l: str, m: str) -> tuple[Any, int]:  # noqa: E741
        """The model a name points to, and the version its `@…` picks (the default without one)."""
        name = f"projects/{p}/locations/{l}/models/{m.partition('@')[0]}"
        model = self.serving.models.get(name)
        version = model.version_of(m) if model is not None else None
        if model is None or version is None:
            raise ApiError(404, f"Model `projects/{p}/locations/{l}/models/{m}` not found.")
        return model, version

    async def get_model(self, _request: Request, p: str, l: str, m: str, **_: Any) -> Response:  # noqa: E741
        model, version = self._model(p, l, m)
        return json_response(model.resource(version))

    def _not_deployed(self, model: Any, version: int | None = None) -> None:
        in_use = self.serving.models_in_use(model.name, version)
        if in_use:
            what = model.name if version is None else f"{model.name}@{version}"
            raise ApiError(
                400,
                f"Model `{what}` is deployed or being deployed at the following Endpoint(s): "
                + ", ".join(in_use),
                status="FAILED_PRECONDITION",
            )

    async def delete_model(self, _request: Request, p: str, l: str, m: str, **_: Any) -> Response:  # noqa: E741
        """Delete a model with every one of its versions (a version suffix is refused)."""
        if "@" in m:
            raise ApiError(400, "To delete one model version, call models.deleteVersion.")
        model, _ = self._model(p, l, m)
        self._not_deployed(model)
        return self._delete(p, l, lambda: self.serving.models.pop(model.name, None))

    async def delete_version(self, _request: Request, p: str, l: str, m: str, **_: Any) -> Response:  # noqa: E741
        """Delete one version (`M@N:deleteVersion`); the model goes with its last version."""
        if "@" not in m:
            raise ApiError(400, "The model version to delete must include a version ID, e.g. models/123@2.")
        model, version = self._model(p, l, m)
        self._not_deployed(model, version)

        def deleted() -> None:
            model.versions.pop(version, None)
            if not model.versions:
                self.serving.models.pop(model.name, None)
            elif model.default not in model.versions:
                model.default = max(model.versions)

        return self._delete(p, l, deleted)

    async def get_operation(self, _request: Request, op: str, **_: Any) -> Response:
        found = self.serving.operations.get(op)
        if found is None:
            raise ApiError(404, f"Operation `{op}` not found.")
        return json_response(found)

    # --- metrics --------------------------------------------------------------------------------

    async def get_context(self, _request: Request, rest: str, **_: Any) -> Response:
        ctx = self.metrics.contexts.get(rest)
        if ctx is None:
            raise ApiError(404, f"Context {rest} not found.")
        return json_response(ctx)

    def _tensorboard(self, p: str, l: str, tb: str) -> str:  # noqa: E741
        name = f"projects/{p}/locations/{l}/tensorboards/{tb}"
        if name not in self.metrics.tensorboards:
            raise ApiError(404, f"Tensorboard {name} not found.")
        return name

    async def get_tensorboard(self, _request: Request, p: str, l: str, tb: str, **_: Any) -> Response:  # noqa: E741
        name = self._tensorboard(p, l, tb)
        body = dict(self.metrics.tensorboards[name])
        body["runCount"] = sum(1 for r in self.metrics.runs if r.startswith(name + "/"))
        return json_response(body)

    async def list_experiments(self, request: Request, p: str, l: str, tb: str, **_: Any) -> Response:  # noqa: E741
        items = self.metrics.experiments_of(self._tensorboard(p, l, tb))
        return json_response(self._page(request, items, "tensorboardExperiments"))

    async def get_experiment(self, _request: Request, rest: str, **_: Any) -> Response:
        exp = self.metrics.experiments.get(rest)
        if exp is None:
            raise ApiError(404, f"TensorboardExperiment {rest} not found.")
        return json_response(exp)

    async def list_runs(self, request: Request, rest: str, **_: Any) -> Response:
        exp = rest.removesuffix("/runs")
        if exp not in self.metrics.experiments:
            raise ApiError(404, f"TensorboardExperiment {exp} not found.")
        return json_response(self._page(request, self.metrics.runs_of(exp), "tensorboardRuns"))

    async def get_run(self, _request: Request, rest: str, **_: Any) -> Response:
        run = self.metrics.runs.get(rest)
        if run is None:
            raise ApiError(404, f"TensorboardRun {rest} not found.")
        return json_response(run)

    async def list_series(self, request: Request, rest: str, **_: Any) -> Response:
        run = rest.removesuffix("/timeSeries")
        if run not in self.metrics.runs:
            raise ApiError(404, f"TensorboardRun {run} not found.")
        items = [self.metrics.series[n].resource() for n in self.metrics.run_series.get(run, [])]
        return json_response(self._page(request, items, "tensorboardTimeSeries"))

    def _series(self, name: str) -> Any:
        s = self.metrics.series.get(name)
        if s is None:
            raise ApiError(404, f"TensorboardTimeSeries {name} not found.")
        return s

    async def get_series(self, _request: Request, rest: str, **_: Any) -> Response:
        return json_response(self._series(rest).resource())

    async def read_series(self, request: Request, rest: str, **_: Any) -> Response:
        s = self._series(rest.removesuffix(":read"))
        try:
            limit = int(request.query_params.get("maxDataPoints") or 1000)
        except ValueError:
            raise ApiError(400, "Invalid max_data_points.") from None
        if limit > 10000:
            raise ApiError(400, "max_data_points must be at most 10000.")
        if limit == -1:  # the discovery document: -1 returns every point
            return json_response({"timeSeriesData": s.data(None)})
        return json_response({"timeSeriesData": s.data(max(1, limit))})

    async def batch_read(self, request: Request, p: str, l: str, tb: str, **_: Any) -> Response:  # noqa: E741
        name = self._tensorboard(p, l, tb)
        wanted = request.query_params.getlist("timeSeries")
        if not wanted:
            raise ApiError(400, "time_series must be specified.")
        if len(wanted) > MAX_BATCH_READ:
            raise ApiError(
                400,
                f"Too many time series to read: {len(wanted)}. "
                f"At most {MAX_BATCH_READ} are allowed per request.",
            )
        data = []
        for ts in wanted:
            if not ts.startswith(name + "/experiments/"):
                raise ApiError(400, f"TensorboardTimeSeries {ts} does not belong to Tensorboard {name}.")
            data.append(self._series(ts).data())
        return json_response({"timeSeriesData": data})

    @staticmethod
    def _page(request: Request, items: list[dict[str, Any]], key: str) -> dict[str, Any]:
        q = request.query_params
        try:
            size = int(q.get("pageSize") or 50)
            offset = (
                int(base64.urlsafe_b64decode(q["pageToken"].encode()).decode()) if q.get("pageToken") else 0
            )
        except ValueError:
            raise ApiError(400, "Invalid page_size or page_token.") from None
        size = min(max(size, 1), 1000)
        out: dict[str, Any] = {}
        if items[offset : offset + size]:
            out[key] = items[offset : offset + size]
        if offset + size < len(items):
            out["nextPageToken"] = base64.urlsafe_b64encode(str(offset + size).encode()).decode()
        return out

    # --- introspection (tests only) ---------------------------------------------------------------

    async def admin_jobs(self, _request: Request) -> Response:
        assert self.store is not None
        rp = self.options.jobs.report_progress
        return json_response({"jobs": [j.internal(rp) for j in self.store.jobs.values()]})

    async def admin_requests(self, _request: Request) -> Response:
        return json_response(
            {
                "counts": dict(self.counts),
                "rewardCalls": self.reward_calls,
                "faultsInjected": dict(self.faults.injected),
            }
        )

    async def admin_resources(self, _request: Request) -> Response:
        self.serving.settle()
        return json_response(
            {
                "endpoints": [e.resource() for e in self.serving.endpoints.values()],
                "models": [
                    {**m.resource(v), "name": f"{m.name}@{v}"}
                    for m in self.serving.models.values()
                    for v in sorted(m.versions)
                ],
                "operations": list(self.serving.operations.values()),
            }
        )


def create_app(options: Options | None = None) -> Starlette:
    return Emulator(options or Options()).app()
