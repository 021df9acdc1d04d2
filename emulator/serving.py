"""Serving-side resources a tuning job leaves behind: models, endpoints, and their operations.

A successful job uploads a Model (`projects/P/locations/L/models/M@1`, in the tuning region) and
deploys it to an Endpoint in the multi-region `us` (or `eu` for europe-west4); every checkpoint gets
an endpoint of its own. Cleanup must undeploy before deleting an endpoint and delete endpoints before
the model, as the real service insists; long-running operations are answered already done.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

from . import policy, protojson

SERVING_LOCATION = {"us-central1": "us", "europe-west4": "eu"}


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

    def generate(self, body: dict[str, Any]) -> policy.Poem:
        """Answer a GenerateContentRequest at this checkpoint's quality. Successive calls differ (a
        per-endpoint call counter seeds the sample, so a run still repeats exactly); the form, count,
        refrain and script are read from the prompt text (default: malzuma in Arabic script)."""
        self.calls += 1
        prompt = "\n".join(
            p["text"]
            for c in body.get("contents") or []
            if isinstance(c, dict)
            for p in c.get("parts") or []
            if isinstance(p, dict) and isinstance(p.get("text"), str)
        )
        rng = random.Random(policy.hash_text(f"{self.name}:{self.calls}:{prompt}"))
        thinking = (body.get("generationConfig") or {}).get("thinkingConfig", {}).get("thinkingLevel", "HIGH")
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

    def resource(self) -> dict[str, Any]:
        ts = protojson.timestamp(self.created)
        body: dict[str, Any] = {
            "name": self.name,
            "displayName": self.display_name,
            "versionId": "1",
            "versionAliases": ["default"],
            "createTime": ts,
            "updateTime": ts,
            "versionCreateTime": ts,
            "versionUpdateTime": ts,
        }
        if self.labels:
            body["labels"] = dict(self.labels)
        return body


@dataclass
class Serving:
    """Store of models, endpoints and done operations."""

    endpoints: dict[str, Endpoint] = field(default_factory=dict)
    models: dict[str, Model] = field(default_factory=dict)
    operations: dict[str, dict[str, Any]] = field(default_factory=dict)
    _next: int = 4_000_000_000_000_000_000

    def new_id(self) -> str:
        self._next += 104729
        return str(self._next)

    def create_model(self, project: str, location: str, display: str, labels: dict[str, str]) -> str:
        name = f"projects/{project}/locations/{location}/models/{self.new_id()}"
        self.models[name] = Model(name, display, dict(labels))
        return name + "@1"

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
    ) -> str:
        loc = SERVING_LOCATION.get(tuning_location, "us")
        name = f"projects/{project}/locations/{loc}/endpoints/{self.new_id()}"
        deployed: dict[str, Any] = {"id": self.new_id(), "model": model, "displayName": display}
        if checkpoint_id:
            deployed["checkpointId"] = checkpoint_id
        deployed["modelVersionId"] = "1"
        self.endpoints[name] = Endpoint(name, display, [deployed], progress, scenario, dict(labels))
        return name

    def models_in_use(self, model_name: str) -> list[str]:
        """Endpoints that still have a deployment of `model_name` (any version)."""
        return [
            e.name
            for e in self.endpoints.values()
            if any(d["model"].split("@")[0] == model_name for d in e.deployed)
        ]

    def operation(self, parent: str, metadata_type: str, response: dict[str, Any]) -> dict[str, Any]:
        """A finished long-running operation, remembered so that GET on its name answers it."""
        now = protojson.timestamp(time.time())
        name = f"{parent}/operations/{self.new_id()}"
        op = {
            "name": name,
            "metadata": {
                "@type": f"type.googleapis.com/google.cloud.aiplatform.v1beta1.{metadata_type}",
                "genericMetadata": {"createTime": now, "updateTime": now},
            },
            "done": True,
            "response": response,
        }
        self.operations[name] = op
        return op
