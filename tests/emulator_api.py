"""The emulator's API surface as the tests/test_emulator*.py files and bench/bench_emulator.py use it.

A small in-test Cloud Run reward server stands in for the scorer (its reward is deliberately naive,
so the hacking scenario can please it), a dataset of Arabic prompts sits in a gs:// folder, and
the HTTP helpers check every body they send or receive against the discovery document.
"""

from __future__ import annotations

import contextlib
import http.server
import itertools
import json
import os
import subprocess
import sys
import threading
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Any

import requests

from discovery import validate
from polling import job_state
from servers import ROOT, emulator
from tunifolk.local_gcs import object_uri, write_object

PROJECT = "proj"
LOC = "us-central1"
FAST = ("--step-seconds", "0.01")
JUDGE = "projects/proj/locations/us-central1/publishers/google/models/gemini-2.5-pro"

# --- a fixture Cloud Run reward server ------------------------------------------------------------


def structure_reward(text: str) -> float:
    """A deliberately naive structure reward: share of line ends that keep the malzuma rhyme plan.

    It is easy to please by repeating one rhyme word, which is exactly what the hacking scenario
    exploits.
    """
    blocks = [[ln.split() for ln in b.splitlines() if ln.strip()] for b in text.split("\n\n") if b.strip()]
    if not blocks or not blocks[0]:
        return -1.0
    a = blocks[0][0][-1][-1]
    hits = total = 0
    for block in blocks[1:]:
        ends = [ln[-1][-1] for ln in block[:4] if ln]
        for x, y in itertools.pairwise(ends[:3]):
            hits += x == y
            total += 1
        if len(ends) == 4:
            hits += ends[3] == a
            total += 1
    return 2.0 * hits / total - 1.0 if total else -1.0


class Backlogged(http.server.ThreadingHTTPServer):
    """A threading server that queues as many connections as a training step opens at once: whole GRPO
    groups (16 responses and more) are scored together, past socketserver's default backlog of 5."""

    daemon_threads = True
    request_queue_size = 512


class RewardServer:
    """`/ok` scores the poem, `/zero` answers 0.0, `/fail` answers 500, `/invalid` a 200 without reward."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append(
                    {"path": self.path, "body": body, "authorization": self.headers.get("Authorization")}
                )
                if self.path.startswith("/fail"):
                    self._send(500, {"error": "boom"})
                elif self.path.startswith("/invalid"):
                    self._send(200, {"score": 1})
                elif self.path.startswith("/zero"):
                    self._send(200, {"reward": 0.0, "user_requested_aux_info": "{}"})
                else:
                    parts = body["response"]["parts"]
                    text = "".join(p.get("text", "") for p in parts if not p.get("thought"))
                    reward = structure_reward(text)
                    self._send(200, {"reward": reward, "user_requested_aux_info": json.dumps({"s": reward})})

            def _send(self, code: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = Backlogged(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        # shutdown() waits up to one poll interval: 0.5 s by default, for every test
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    def __enter__(self) -> RewardServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


# --- datasets and bodies ----------------------------------------------------------------------------


def example(i: int = 0) -> dict[str, Any]:
    return {
        "systemInstruction": {"parts": [{"text": "أنت شاعر تونسي."}]},
        "contents": [{"role": "user", "parts": [{"text": f"اكتب ملزومة رقم {i} عن البحر."}]}],
        "references": {
            "form": "malzuma",
            "stanzas": "5",
            "refrain": "yes",
            "script": "arabic",
            "theme": "البحر",
        },
    }


def write_datasets(gcs_dir: Path, train: int = 64, val: int = 8) -> tuple[str, str]:
    uris = []
    for name, count in (("rlft/train.jsonl", train), ("rlft/val.jsonl", val)):
        text = "\n".join(json.dumps(example(i), ensure_ascii=False) for i in range(count))
        write_object(gcs_dir, "bucket", name, text.encode())
        uris.append(object_uri("bucket", name))
    return uris[0], uris[1]


def cloud_run_reward(name: str, uri: str) -> dict[str, Any]:
    return {
        "rewardName": name,
        "parseResponseConfig": {"parseType": "IDENTITY"},
        "cloudRunRewardScorer": {"cloudRunUri": uri},
    }


def autorater_reward(name: str = "poetic_quality", model: str | None = JUDGE) -> dict[str, Any]:
    config: dict[str, Any] = {"samplingCount": 4}
    if model is not None:
        config["autoraterModel"] = model
    return {
        "rewardName": name,
        "autoraterScorer": {
            "autoraterConfig": config,
            "autoraterPrompt": "Rate the poem {{response}} from -1 to 1, inside <answer></answer>.",
            "autoraterResponseParseConfig": {
                "parseType": "REGEX_EXTRACT",
                "regexExtractExpression": "<answer>(.*?)</answer>",
            },
            "parsedResponseConversionScorer": {},
        },
    }


def job_body(
    train: str,
    val: str | None,
    reward_uri: str,
    labels: dict[str, str] | None = None,
    **hp: Any,
) -> dict[str, Any]:
    hyper = {
        "batchSize": 8,
        "samplesPerPrompt": 16,
        "epochCount": "2",
        "learningRateMultiplier": 1.0,
        "adapterSize": "ADAPTER_SIZE_SIXTEEN",
        "maxOutputTokens": 32768,
        "thinkingLevel": "HIGH",
        "evaluateInterval": 2,
        "checkpointInterval": 4,
    }
    hyper.update(hp)
    for k, v in list(hyper.items()):
        if v is None:
            del hyper[k]
    spec: dict[str, Any] = {
        "trainingDatasetUri": train,
        "hyperParameters": hyper,
        "compositeRewardConfig": {
            "weightedRewardConfigs": [
                {"weight": 0.7, "rewardConfig": cloud_run_reward("structure", reward_uri)},
                {"weight": 0.3, "rewardConfig": autorater_reward()},
            ]
        },
    }
    if val:
        spec["validationDatasetUri"] = val
    body: dict[str, Any] = {
        "baseModel": "gemini-3.5-flash",
        "tunedModelDisplayName": "tunifolk-test",
        "labels": labels or {"tunifolk-spec": "0123456789abcdef"},
        "reinforcementTuningSpec": spec,
    }
    return body


# --- HTTP helpers -------------------------------------------------------------------------------------


def api(url: str, path: str) -> str:
    return f"{url}/v1beta1/{path}"


def parent(location: str = LOC, project: str = PROJECT) -> str:
    return f"projects/{project}/locations/{location}"


def ok(r: requests.Response, schema: str | None = None) -> Any:
    assert r.status_code == 200, (r.status_code, r.text[:500])
    body = r.json()
    if schema:
        validate(schema, body)
    return body


def google_error(
    r: requests.Response, code: int, status: str | None = None, reason: str | None = None
) -> str:
    """Assert Google's JSON error shape (https://cloud.google.com/apis/design/errors): code, message,
    status and maybe `details`; with `reason`, the details hold one google.rpc.ErrorInfo with that reason
    and a domain; return the message."""
    assert r.status_code == code, (r.status_code, r.text[:500])
    assert r.headers["content-type"].startswith("application/json")
    err = r.json()["error"]
    assert {"code", "message", "status"} <= set(err) <= {"code", "message", "status", "details"}
    assert err["code"] == code
    if status:
        assert err["status"] == status
    if reason:
        infos = [d for d in err["details"] if d["@type"] == "type.googleapis.com/google.rpc.ErrorInfo"]
        assert len(infos) == 1 and infos[0]["reason"] == reason and infos[0]["domain"], err
    return err["message"]


def create_job(url: str, body: dict[str, Any], location: str = LOC) -> dict[str, Any]:
    validate("TuningJob", body)
    return ok(requests.post(api(url, parent(location) + "/tuningJobs"), json=body, timeout=10), "TuningJob")


def get_job(url: str, name: str) -> dict[str, Any]:
    return ok(requests.get(api(url, name), timeout=10), "TuningJob")


def wait_for(url: str, name: str, states: Collection[str], timeout: float = 90.0) -> dict[str, Any]:
    return job_state(lambda: get_job(url, name), states, timeout)


def validate_reward(url: str, body: dict[str, Any], location: str = LOC) -> requests.Response:
    return requests.post(
        api(url, parent(location) + "/tuningJobs:validateReinforcementTuningReward"), json=body, timeout=30
    )


def admin(url: str, what: str) -> dict[str, Any]:
    r = requests.get(f"{url}/emulator/{what}", timeout=10)
    assert r.status_code == 200
    return r.json()


def sample_response(text: str = "يا بحر يا ساكن الدار\nنحكيلك على النار") -> dict[str, Any]:
    return {"role": "model", "parts": [{"text": "thinking...", "thought": True}, {"text": text}]}


@contextlib.contextmanager
def world(tmp: Path, *args: str) -> Iterator[tuple[str, RewardServer, str, str]]:
    """An emulator (with ARGS) over a fresh gcs dir holding datasets, plus a reward server."""
    train, val = write_datasets(tmp / "gcs")
    with RewardServer() as rs, emulator(*FAST, "--gcs-dir", str(tmp / "gcs"), *args) as url:
        yield url, rs, train, val


def emulator_help() -> str:
    """`python -m tunifolk.emulator --help`, one line per option (no word broken at a hyphen)."""
    env = {**os.environ, "COLUMNS": "10000"}
    done = subprocess.run(
        [sys.executable, "-m", "tunifolk.emulator", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return done.stdout
