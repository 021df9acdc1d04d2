"""Serving-side resources a tuning job leaves behind: models, endpoints, and their operations.

A successful job uploads a Model (`projects/P/locations/L/models/M@1`, in the tuning region) and
deploys it to an Endpoint in the multi-region `us` (or `eu` for europe-west4); every checkpoint gets
an endpoint of its own. Continuous tuning adds a version to the pre-tuned model instead
(`…/models/M@N+1`), as Vertex does. Cleanup must undeploy before deleting an endpoint and delete
endpoints before the model, as the real service insists.

Undeploy, delete endpoint, delete model and delete version are long-running operations: they start
`done: false`, and their effect lands when they finish (`lro_seconds` later, seen at the next
request). A seeded fault can end one in an error: with code 5 (NOT_FOUND) the thing is gone anyway,
with any other code it stays.
"""

from __future__ import annotations

import random
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tunifolk.job.names import by_local_number

from . import policy, protojson
from .ids import random_id

WRITTEN_KEPT = 50_000
"""Served poems the stand-in judge can find again: an evaluation's worth (checkpoints x prompts x
samples) and more."""
SERVING_LOCATION = {"us-central1": "us", "europe-west4": "eu"}
NOT_FOUND = 5
LRO_ERRORS = {
    NOT_FOUND: "The resource was not found: it may have been deleted already.",
    13: "Internal error encountered.",
}


@dataclass
class Endpoint:
    name: str
    display_name: str
    deployed: list[dict[str, Any]]
    progress: float
    scenario: str
    labels: dict[str, str]
    created: float = field(default_factory=time.time)
    calls: int = 0
    seed: str = ""  # what its samples are drawn from (the job's seed: names are random, runs repeat)

    def generate(self, body: dict[str, Any]) -> policy.Poem:
        """Answer a GenerateContentRequest at this checkpoint's quality. Successive calls differ (a
        per-endpoint call counter seeds the sample, so a run still repeats exactly), unless the request
        sets `generationConfig.seed`: then, as Google documents for that field ("for a given prompt and
        parameters … the same response every time"), the sample depends on the seed and the prompt
        only, whatever was asked before. The form, count, refrain and script are read from the prompt
        text (default: malzuma in Arabic script)."""
        self.calls += 1
        config = body.get("generationConfig") or {}
        prompt = request_text(body)
        draw = f"seed={config['seed']}" if isinstance(config.get("seed"), int) else str(self.calls)
        rng = random.Random(policy.hash_text(f"{self.seed or self.name}:{draw}:{prompt}"))
        thinking = config.get("thinkingConfig", {}).get("thinkingLevel", "HIGH")
        refs = policy.references_from_prompt(prompt)
        return policy.generate(rng, self.progress, self.scenario, refs, str(thinking))

    def resource(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "name": self.name,
            "displayName": self.display_name,
            "createTime": protojson.timestamp(self.created),
            "updateTime": protojson.timestamp(self.created),
            "deployedModels": [dict(d) for d in self.deployed],
        }
        if self.labels:
            body["labels"] = dict(self.labels)
        if self.deployed:
            body["trafficSplit"] = {self.deployed[0]["id"]: 100}
        return body


@dataclass
class Model:
    name: str  # without the version
    display_name: str
    labels: dict[str, str]
    created: float = field(default_factory=time.time)
    versions: dict[int, float] = field(default_factory=lambda: {1: time.time()})
    default: int = 1
    aliases: dict[str, int] = field(default_factory=dict)  # every alias but `default` → its version

    def version_of(self, ref: str) -> int | None:
        """The version a name's `@…` suffix picks (an id or the `default` alias); None if none."""
        _, _, tag = ref.partition("@")
        if tag in ("", "default"):
            wanted: int | None = self.default
        else:
            wanted = int(tag) if tag.isdigit() else self.aliases.get(tag)
        return wanted if wanted in self.versions else None

    def aliases_of(self, version: int) -> list[str]:
        """The version's aliases: `default` first (the discovery document: "A default version alias
        will be created for the first version of the model, and there must be exactly one")."""
        own = sorted(a for a, v in self.aliases.items() if v == version)
        return ["default", *own] if version == self.default else own

    def resource(self, version: int | None = None) -> dict[str, Any]:
        version = self.default if version is None else version
        ts = protojson.timestamp(self.created)
        vts = protojson.timestamp(self.versions[version])
        body: dict[str, Any] = {
            "name": self.name,
            "displayName": self.display_name,
            "versionId": str(version),
            "versionAliases": self.aliases_of(version),
            "createTime": ts,
            "updateTime": vts,
            "versionCreateTime": vts,
            "versionUpdateTime": vts,
        }
        if self.labels:
            body["labels"] = dict(self.labels)
        return body


@dataclass
class ServingSettings:
    """How the serving side's long-running operations behave."""

    lro_seconds: float = 0.05
    lro_error_rate: float = 0.0
    lro_error_code: int = 13


@dataclass
class Pending:
    """A long-running operation in flight: what it does when it ends, and how it ends."""

    done_at: float
    effect: Callable[[], object]
    error: dict[str, Any] | None  # a google.rpc.Status, or None for success
    response: dict[str, Any]


def request_text(body: dict[str, Any]) -> str:
    """The text of a GenerateContentRequest's contents, parts joined by newlines: what a model reads."""
    return "\n".join(
        p["text"]
        for c in body.get("contents") or []
        if isinstance(c, dict)
        for p in c.get("parts") or []
        if isinstance(p, dict) and isinstance(p.get("text"), str)
    )


class Written:
    """The poems served lately (WRITTEN_KEPT of them), found again by their second line (a prompt may
    run its own words into a quoted poem's first and last lines): the stand-in judge (`api_rewards`)
    reads sense from the poem a judge prompt quotes, not from the prompt's own instructions around
    it, as a model reading the whole prompt would."""

    def __init__(self, kept: int = WRITTEN_KEPT) -> None:
        self.kept = kept
        self._by_first: OrderedDict[str, list[str]] = OrderedDict()

    def add(self, text: str) -> None:
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        if not lines:
            return
        key = lines[1] if len(lines) > 1 else lines[0]
        texts = self._by_first.setdefault(key, [])
        texts.append(text.strip())
        self._by_first.move_to_end(key)
        del texts[:-4]
        while len(self._by_first) > self.kept:
            self._by_first.popitem(last=False)

    def quoted_in(self, prompt: str) -> str | None:
        """The longest served poem `prompt` quotes whole, or None."""
        found: str | None = None
        for line in prompt.splitlines():
            for text in self._by_first.get(line.strip(), ()):
                if text in prompt and (found is None or len(text) > len(found)):
                    found = text
        return found


@dataclass
class Serving:
    """Store of models, endpoints and long-running operations."""

    endpoints: dict[str, Endpoint] = field(default_factory=dict)
    models: dict[str, Model] = field(default_factory=dict)
    operations: dict[str, dict[str, Any]] = field(default_factory=dict)
    lro_seconds: float = 0.05
    lro_error_rate: float = 0.0
    lro_error_code: int = 13
    seed: int = 0
    pending: dict[str, Pending] = field(default_factory=dict)
    written: Written = field(default_factory=lambda: Written())
    _rng: random.Random = field(init=False)

    def __post_init__(self) -> None:
        self._rng = random.Random(f"lro:{self.seed}")  # its own stream: request faults stay as they were

    def new_id(self) -> str:
        """A random id (`ids.random_id`): models, endpoints, deployed models and operations."""
        return random_id()

    def create_model(self, project: str, location: str, display: str, labels: dict[str, str]) -> str:
        name = f"projects/{project}/locations/{location}/models/{self.new_id()}"
        self.models[name] = Model(name, display, dict(labels))
        return name + "@1"

    def model(self, name: str) -> Model | None:
        """The model `name` names, its project by ID or by number, with or without a version."""
        return self.models.get(by_local_number(name.partition("@")[0]))

    def new_version(self, parent: str) -> str | None:
        """Continuous tuning: a new version of the pre-tuned model (`M@N+1`); None if it is gone."""
        model = self.model(parent)
        if model is None:
            return None
        version = max(model.versions) + 1
        model.versions[version] = time.time()
        return f"{model.name}@{version}"

    def create_endpoint(
        self,
        project: str,
        tuning_location: str,
        display: str,
        model: str,
        checkpoint_id: str | None,
        progress: float,
        scenario: str,
        labels: dict[str, str],
        seed: str = "",
    ) -> str:
        loc = SERVING_LOCATION.get(tuning_location, "us")
        name = f"projects/{project}/locations/{loc}/endpoints/{self.new_id()}"
        deployed: dict[str, Any] = {"id": self.new_id(), "model": model, "displayName": display}
        if checkpoint_id:
            deployed["checkpointId"] = checkpoint_id
        deployed["modelVersionId"] = "1"
        self.endpoints[name] = Endpoint(
            name, display, [deployed], progress, scenario, dict(labels), seed=seed
        )
        return name

    def models_in_use(self, model_name: str, version: int | None = None) -> list[str]:
        """Endpoints that still deploy `model_name` (any version, or the given one)."""

        def uses(deployed: dict[str, Any]) -> bool:
            base, _, tag = deployed["model"].partition("@")
            return base == model_name and (version is None or tag in ("", str(version)))

        return [e.name for e in self.endpoints.values() if any(uses(d) for d in e.deployed)]

    def operation(
        self, parent: str, metadata_type: str, response: dict[str, Any], effect: Callable[[], object]
    ) -> dict[str, Any]:
        """Start a long-running operation: `done: false` now, `effect` when it ends (unless a seeded
        fault ends it in an error other than NOT_FOUND)."""
        now = protojson.timestamp(time.time())
        name = f"{parent}/operations/{self.new_id()}"
        op = {
            "name": name,
            "metadata": {
                "@type": f"type.googleapis.com/google.cloud.aiplatform.v1beta1.{metadata_type}",
                "genericMetadata": {"createTime": now, "updateTime": now},
            },
            "done": False,
        }
        error = None
        if self._rng.random() < self.lro_error_rate:
            code = self.lro_error_code
            error = {"code": code, "message": LRO_ERRORS.get(code, "Internal error encountered.")}
        self.operations[name] = op
        self.pending[name] = Pending(time.time() + self.lro_seconds, effect, error, response)
        return dict(op)

    def settle(self, force: bool = False) -> None:
        """Finish every operation whose time has come (every one, when `force`: the emulator stops and
        they would have finished meanwhile): apply its effect, or record its error."""
        now = time.time()
        for name, pending in list(self.pending.items()):
            if pending.done_at > now and not force:
                continue
            del self.pending[name]
            op = self.operations[name]
            op["done"] = True
            op["metadata"]["genericMetadata"]["updateTime"] = protojson.timestamp(now)
            if pending.error is None or pending.error["code"] == NOT_FOUND:
                pending.effect()
            if pending.error is None:
                op["response"] = pending.response
            else:
                op["error"] = pending.error


def generate_response(poem: policy.Poem, model_version: str, seed_text: str) -> dict[str, Any]:
    """A GenerateContentResponse carrying `poem`, with token counts as Gemini reports them."""
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
