"""Routes of the serving side: endpoints (get, generateContent, undeployModel, delete), models (get,
delete, deleteVersion, listVersions, mergeVersionAliases) and their long-running operations (get).

The store and its rules are `serving.Serving`; here are the refusals the service answers before
anything changes: an endpoint with deployed models cannot be deleted, nor a model (or version)
that is still deployed somewhere, nor the only version of a model or its default version (the
discovery document, models.deleteVersion and Model.versionAliases). Undeploy and the deletes answer
an operation that ends later.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response

from . import checks
from .responses import LOCATION, ApiError, RouteSpec, checked, json_response, read_body
from .serving import Endpoint, Model, generate_response
from .state import State

ENDPOINT = LOCATION + r"/endpoints/(?P<e>[^/:]+)"
MODEL = LOCATION + r"/models/(?P<m>[^/:]+)"
ALIAS = re.compile(r"[a-z][a-z0-9-]{0,126}[a-z0-9]|[a-z]")  # the discovery document's a-z{0,126}[a-z-0-9]


class ServingRoutes:
    """Endpoints, models and operations."""

    def __init__(self, state: State) -> None:
        self.state = state

    def routes(self) -> list[RouteSpec]:
        return [
            ("GET", ENDPOINT, self.get_endpoint, True),
            ("DELETE", ENDPOINT, self.delete_endpoint, True),
            ("POST", ENDPOINT + r":generateContent", self.generate, True),
            ("POST", ENDPOINT + r":undeployModel", self.undeploy, True),
            ("GET", MODEL, self.get_model, True),
            ("DELETE", MODEL, self.delete_model, True),
            ("DELETE", MODEL + r":deleteVersion", self.delete_version, True),
            ("GET", MODEL + r":listVersions", self.list_versions, True),
            ("POST", MODEL + r":mergeVersionAliases", self.merge_aliases, True),
            ("GET", r"(?P<op>.+/operations/[^/:]+)", self.get_operation, True),
        ]

    def _endpoint(self, name: str) -> Endpoint:
        ep = self.state.serving.endpoints.get(name)
        if ep is None:
            raise ApiError(404, f"Endpoint `{name}` not found.")
        return ep

    async def get_endpoint(self, _request: Request, rest: str, **_: Any) -> Response:
        return json_response(self._endpoint(rest).resource())

    async def generate(self, request: Request, rest: str, **_: Any) -> Response:
        body = await read_body(request)
        body = checked(checks.GENERATE_REQUEST, body, "generate_content_request")
        ep = self._endpoint(rest.removesuffix(":generateContent"))
        if not ep.deployed:
            raise ApiError(400, f"Endpoint `{ep.name}` has no deployed model.", status="FAILED_PRECONDITION")
        poem = ep.generate(body)
        self.state.serving.written.add(poem.text)
        return json_response(generate_response(poem, ep.deployed[0]["model"], orjson.dumps(body).decode()))

    async def undeploy(self, request: Request, rest: str, **_: Any) -> Response:
        body = await read_body(request)
        body = checked(checks.UNDEPLOY_REQUEST, body, "undeploy_model_request")
        ep = self._endpoint(rest.removesuffix(":undeployModel"))
        dm = body.get("deployedModelId")
        if not dm:
            raise ApiError(400, "deployed_model_id is required.")
        if not any(d["id"] == dm for d in ep.deployed):
            raise ApiError(404, f"DeployedModel {dm} not found in Endpoint `{ep.name}`.")

        def undeployed() -> None:
            ep.deployed = [d for d in ep.deployed if d["id"] != dm]

        op = self.state.serving.operation(
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
        return self._delete(p, l, lambda: self.state.serving.endpoints.pop(ep.name, None))

    def _delete(self, p: str, l: str, effect: Callable[[], object]) -> Response:  # noqa: E741
        """A delete's long-running operation in the location; `effect` runs when it finishes."""
        op = self.state.serving.operation(
            f"projects/{p}/locations/{l}",
            "DeleteOperationMetadata",
            {"@type": "type.googleapis.com/google.protobuf.Empty"},
            effect,
        )
        return json_response(op)

    def _model(self, p: str, l: str, m: str) -> tuple[Model, int]:  # noqa: E741
        """The model a name points to, and the version its `@…` picks (the default without one)."""
        name = f"projects/{p}/locations/{l}/models/{m.partition('@')[0]}"
        model = self.state.serving.models.get(name)
        version = model.version_of(m) if model is not None else None
        if model is None or version is None:
            raise ApiError(404, f"Model `projects/{p}/locations/{l}/models/{m}` not found.")
        return model, version

    async def get_model(self, _request: Request, p: str, l: str, m: str, **_: Any) -> Response:  # noqa: E741
        model, version = self._model(p, l, m)
        return json_response(model.resource(version))

    def _not_deployed(self, model: Model, version: int | None = None) -> None:
        in_use = self.state.serving.models_in_use(model.name, version)
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
        return self._delete(p, l, lambda: self.state.serving.models.pop(model.name, None))

    async def delete_version(self, _request: Request, p: str, l: str, m: str, **_: Any) -> Response:  # noqa: E741
        """Delete one version (`M@N:deleteVersion`), never the only one nor the default one.

        The discovery document (aiplatform v1beta1, models.deleteVersion): "Model version can only be
        deleted if there are no DeployedModels created from it. Deleting the only version in the
        Model is not allowed. Use DeleteModel for deleting the Model instead." And Model.versionAliases:
        "there must be exactly one default version alias for a model", so the default version cannot
        go either (Google's wording of both refusals is UNCONFIRMED; 400 FAILED_PRECONDITION as for
        the deployed-model refusal)."""
        if "@" not in m:
            raise ApiError(400, "The model version to delete must include a version ID, e.g. models/123@2.")
        model, version = self._model(p, l, m)
        if len(model.versions) == 1:
            raise ApiError(
                400,
                f"Model version `{model.name}@{version}` is the only version of the Model. "
                "Deleting the only version in the Model is not allowed: use DeleteModel instead.",
                status="FAILED_PRECONDITION",
            )
        if version == model.default:
            raise ApiError(
                400,
                f"Model version `{model.name}@{version}` is the default version of the Model and cannot "
                "be deleted: make another version the default (mergeVersionAliases) first.",
                status="FAILED_PRECONDITION",
            )
        self._not_deployed(model, version)  # (the order of the three refusals is UNCONFIRMED)

        def deleted() -> None:
            model.versions.pop(version, None)
            model.aliases = {a: v for a, v in model.aliases.items() if v != version}

        return self._delete(p, l, deleted)

    async def list_versions(self, _request: Request, p: str, l: str, m: str, **_: Any) -> Response:  # noqa: E741
        """Every version of a model, oldest first (one page: a tuned model has few)."""
        model, _ = self._model(p, l, m.partition("@")[0])
        return json_response({"models": [model.resource(v) for v in sorted(model.versions)]})

    async def merge_aliases(self, request: Request, p: str, l: str, m: str, **_: Any) -> Response:  # noqa: E741
        """Add (or, with a `-` prefix, remove) aliases of one version. `default` moves to this version;
        removing it is refused, since a model has exactly one default (the discovery document,
        Model.versionAliases; the refusal's wording UNCONFIRMED)."""
        body = await read_body(request)
        aliases = body.get("versionAliases")
        if not isinstance(aliases, list) or not aliases or not all(isinstance(a, str) for a in aliases):
            raise ApiError(400, "version_aliases must be a non-empty list of strings.")
        model, version = self._model(p, l, m)
        for alias in aliases:
            name = alias.removeprefix("-")
            if not ALIAS.fullmatch(name) or name.isdigit():
                raise ApiError(400, f"Invalid version alias {alias!r}: it must match a-z{{0,126}}[a-z-0-9].")
            if alias == "-default":
                raise ApiError(
                    400, "The default version alias cannot be removed; move it to another version."
                )
        for alias in aliases:
            if alias == "default":
                model.default = version
            elif alias.startswith("-"):
                if model.aliases.get(alias[1:]) == version:
                    del model.aliases[alias[1:]]
            else:
                model.aliases[alias] = version
        return json_response(model.resource(version))

    async def get_operation(self, _request: Request, op: str, **_: Any) -> Response:
        found = self.state.serving.operations.get(op)
        if found is None:
            raise ApiError(404, f"Operation `{op}` not found.")
        return json_response(found)
