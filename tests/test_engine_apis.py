"""`tunifolk:enableApis: true` under the real engine: `pulumi up` enables the APIs the stack uses
before anything that needs them is made, and `pulumi destroy` leaves them enabled (other things in
the project may use them; README, configuration table). The stand-in records an enabled API as a
file under `<stand-in state>/apis/<project>/`, as Service Usage keeps it on after the resource goes.
"""

from __future__ import annotations

import pytest

from components.apis import SERVICES
from engine import LocalStack

pytestmark = pytest.mark.slow

SERVICE = "gcp:projects/service:Service"
NEEDS_APIS = ("tunifolk:data:TuningDataset", "tunifolk:scorer:RewardScorer", "tunifolk:rlft:TuningPipeline")


def _enabled(stack: LocalStack) -> list[str]:
    folder = stack.standin / "apis" / "tunifolk-local"
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_enable_apis_comes_first_and_stays_on_after_destroy(stack: LocalStack) -> None:
    stack.init()
    config = stack.config_file(
        "apis.yaml", {"  tunifolk:cleanup: all": "  tunifolk:cleanup: all\n  tunifolk:enableApis: true"}
    )
    stack.up(config)

    resources = stack.resources()
    services = [r for r in resources if r["type"] == SERVICE]
    assert sorted(r["inputs"]["service"] for r in services) == sorted(SERVICES)
    assert all(r["inputs"]["disableOnDestroy"] is False for r in services)
    assert _enabled(stack) == sorted(SERVICES)
    # Everything that calls an API waits for all of them: the components (and so their children)
    # depend on every Service.
    service_urns = {r["urn"] for r in services}
    by_urn = {r["urn"]: r for r in resources}
    for kind in NEEDS_APIS:
        (component,) = [r for r in resources if r["type"] == kind]
        missing = service_urns - set(component.get("dependencies") or [])
        assert not missing, f"{kind} does not wait for {sorted(missing)}"
        children = [r for r in resources if r.get("parent") == component["urn"]]
        assert children, f"{kind} has no children"
    assert all(by_urn[u]["parent"].endswith("EnabledApis::apis") for u in service_urns)
    # and it did: the last API was on before the stand-in made its first other resource
    records = [
        f for f in (stack.standin / "resources").rglob("*.json") if f.parent.name != "projects.service"
    ]
    apis = list((stack.standin / "apis" / "tunifolk-local").iterdir())
    assert records and max(a.stat().st_mtime_ns for a in apis) < min(f.stat().st_mtime_ns for f in records)

    stack.destroy()
    assert stack.resources() == []
    assert _enabled(stack) == sorted(SERVICES), "destroy disabled an API the project may still use"
