"""Fuzz the running scorer with malformed and adversarial requests.

Starts ``python -m scorer`` on a free loopback port (tests/servers.py), sends ``--count`` requests
drawn from a seeded generator, and prints the status-code counts, the number of 5xx answers, the
number of 200 answers whose reward is not a finite number in [-1, 1], and the slowest request.
Exits 1 on any 5xx or bad reward, so ``make fuzz`` fails loudly.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import socket
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from servers import scorer  # noqa: E402

FORMS = ["malzuma", "gsim", "mugef", "muthallath", "mukhammas", "msaddes", "qasida"]
SAMPLES = {f: (ROOT / "data" / "samples" / f"{f}.txt").read_text(encoding="utf-8") for f in FORMS}
NASTY = [
    "\u0640" * 300,
    "\ufeff\u200f\u202e",
    "\ud800",
    "\x00",
    "**" * 500,
    "…" * 2000,
    "```",
    "<think>" * 50,
    "# " * 100,
    "\n" * 3000,
    "ﷺ﷽ﻻ",
    "𝕬𝖗𝖆𝖇𝖎𝖈 😀" * 20,
    "٣٥٧٩",
    "e\u0301" * 200,
]
# Runs that a backtracking pattern turns into seconds (docs/scorer.md, "Linear time"): every kind of
# space, punctuation and markup opener, alone and after a label or signature word, near the cap.
PATHOLOGICAL = [
    prefix + unit * (18_000 // len(unit)) + suffix
    for unit in (
        " ",
        "\t",
        "\u2003",
        "\u3000",
        "\u00a0",
        "*",
        "**a ",
        "*a ",
        "_",
        "<think>",
        "<a ",
        "…",
        "|",
        "-",
    )
    for prefix, suffix in (("", ""), ("stanza", "ab c:"), ("by", "x"))
]
NASTY += PATHOLOGICAL
# line-break runs the size of a request body, after a letter: each pass over the raw text must be linear
NASTY += ["a" + "\n" * 40_001, "a" + "\r" * 40_001, "a" + "\r\n" * 20_001 + "b", "ب" + " \n" * 30_000 + "x"]


def _mutate(rng: random.Random, text: str) -> str:
    lines = text.split("\n")
    op = rng.randrange(8)
    if op == 0:
        rng.shuffle(lines)
    elif op == 1:
        lines = [ln for ln in lines if rng.random() > 0.3]
    elif op == 2:
        lines = lines * rng.randint(2, 30)
    elif op == 3:
        i = rng.randrange(len(lines))
        lines.insert(i, rng.choice(NASTY))
    elif op == 4:
        lines = [ln[: rng.randint(0, max(1, len(ln)))] for ln in lines]
    elif op == 5:
        lines = [" ** ".join([ln] * rng.randint(1, 4)) for ln in lines]
    elif op == 6:
        chars = list(text)
        for _ in range(rng.randint(1, 50)):
            if chars:
                chars[rng.randrange(len(chars))] = chr(rng.randint(1, 0x10FFFF) & 0xFFFF or 1)
        return "".join(chars)
    return "\n".join(lines)


def _poem(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.6:
        return _mutate(rng, SAMPLES[rng.choice(FORMS)])
    if r < 0.8:
        return "".join(rng.choice(NASTY) for _ in range(rng.randint(1, 5)))
    return "".join(chr(rng.randint(32, 0x6FF)) for _ in range(rng.randint(0, 3000)))


def _refs(rng: random.Random) -> Any:
    r = rng.random()
    if r < 0.75:
        d: dict[str, Any] = {"form": rng.choice([*FORMS, "MALZUMA", "sonnet", "", "ملزومة"])}
        if rng.random() < 0.5:
            d["stanzas"] = rng.choice(["5", "0", "-1", "abc", "1e9", 5, None, "٥"])
        if rng.random() < 0.5:
            d["refrain"] = rng.choice(["yes", "no", True, [], {}])
        if rng.random() < 0.5:
            d["script"] = rng.choice(["arabic", "arabizi", "latin", 3])
        return d
    return rng.choice([None, [], "malzuma", 42, {"form": None}, {"form": ["malzuma"]}, {"form": {"x": 1}}])


def _body(rng: random.Random) -> bytes:
    """One request body: mostly the contract with hostile content, some not the contract."""
    r = rng.random()
    if r < 0.55:
        parts: list[Any] = [{"text": _poem(rng)}]
        if rng.random() < 0.3:
            parts.insert(0, {"text": _poem(rng), "thought": True})
        if rng.random() < 0.1:
            parts.append(rng.choice([None, 3, "str", {"text": None}, {"inlineData": {}}, {"text": 5}]))
        doc: dict[str, Any] = {
            "example": {"references": _refs(rng)},
            "response": {"role": "model", "parts": parts},
        }
        if rng.random() < 0.5:
            doc["metadata"] = rng.choice(
                [{"step": 1, "tuning_job_id": "12"}, {"tuningJobId": 99}, None, [], {"step": "NaN"}]
            )
        return json.dumps(doc, ensure_ascii=rng.random() < 0.5).encode("utf-8", "surrogatepass")
    if r < 0.65:
        return bytes(rng.randrange(256) for _ in range(rng.randint(0, 200)))
    if r < 0.75:
        return rng.choice(
            [
                b"[]",
                b"null",
                b"42",
                b'"x"',
                b"{}",
                b'{"response": null}',
                b'{"response": []}',
                b'{"response": {"parts": {}}}',
                b'{"response": {"parts": "text"}}',
                b'{"response": {}}',
                b'{"response": {"parts": null}}',
                b'{"response": {"parts": [{"text": NaN}]}, "example": {"references": {"form": Infinity}}}',
                b'{"response": {"parts": [{"text": "\\ud800\\udc00\\ud800"}]},'
                b' "example": {"references": {"form": "gsim"}}}',
                b'{"response": {"parts": [1e999]}}',
                b"{" * 100_000,
                b"[" * 5000 + b"]" * 5000,
                b'{"response": {"parts": [' + b'{"text": "a"},' * 20000 + b'{"text": "b"}]}}',
            ]
        )
    if r < 0.78:
        return _big(rng.choice(FORMS), rng.choice([3_000, 30_000, 300_000, 3_000_000, 5_000_000]))
    doc = {
        "example": {"references": {"form": rng.choice(FORMS)}},
        "response": {"parts": [{"text": _poem(rng)}]},
    }
    return json.dumps(doc).encode()


_BIG: dict[tuple[str, int], bytes] = {}


def _big(form: str, size: int) -> bytes:
    """A long poem-like body of about ``size`` bytes (over MAX_BODY for the largest: a 413)."""
    key = (form, size)
    if key not in _BIG:
        text = ("يا بحر يا موجك غدّار ** خذيت مني ضي النهار\n" * (size // 80 + 1))[: size // 2]
        doc = {"example": {"references": {"form": form}}, "response": {"parts": [{"text": text}]}}
        _BIG[key] = json.dumps(doc, ensure_ascii=False).encode()
    return _BIG[key]


def _raw(url: str, payload: bytes) -> int:
    """Send raw bytes (malformed HTTP) and return the status code, or 0 when the server hangs up."""
    u = urlsplit(url)
    with socket.create_connection((u.hostname, u.port), timeout=10) as s:
        try:
            s.sendall(payload)
            s.shutdown(socket.SHUT_WR)  # the server sees the end of a short body at once
            head = s.recv(64)
        except (TimeoutError, ConnectionError):
            return 0
    try:
        return int(head.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return 0


RAW = [
    b"GARBAGE\r\n\r\n",
    b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nab",
    b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
    b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999\r\n\r\n",
    b"POST /" + b"a" * 70000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
    b"POST / HTTP/1.1\r\nHost: x\r\n" + b"X-A: b\r\n" * 2000 + b"\r\n",
    b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",
]


def run(count: int, seed: int, url: str | None = None) -> dict[str, Any]:
    """Send ``count`` generated requests; return the tallies (see the module doc)."""
    if url is None:
        with scorer(env={"LOG_LEVEL": "error"}) as u:
            return run(count, seed, u)
    rng = random.Random(seed)
    statuses: Counter[int] = Counter()
    bad_rewards = 0
    slowest = (0.0, "")
    session = requests.Session()
    for i in range(count):
        r = rng.random()
        t0 = time.perf_counter()
        if r < 0.02:
            payload = RAW[rng.randrange(len(RAW))]
            code = _raw(url, payload)
            what = f"raw {payload[:20]!r}"
            statuses[code] += 1
        else:
            method = "POST" if r < 0.97 else rng.choice(["GET", "PUT", "DELETE", "PATCH", "OPTIONS"])
            path = rng.choice(["/", "/", "/score", "/a/b?c=d", "/%ff", "/healthz"])
            body = _body(rng) if method != "GET" else b""
            # mostly what Vertex sends; a page's text/plain and a foreign Origin are refused (403/415)
            kind = rng.choice(
                ["application/json"] * 8 + ["application/json; charset=utf-8", "text/plain", "x/y"]
            )
            headers = {
                "content-type": kind,
                **({"origin": "https://a.example"} if rng.random() < 0.02 else {}),
            }
            if rng.random() < 0.05 and len(body) < 1_000_000:
                data: Any = iter([body[j : j + 777] for j in range(0, len(body), 777)])  # chunked
            else:
                data = body
            try:
                resp = session.request(method, url + path, data=data, headers=headers, timeout=60)
            except requests.ConnectionError:
                session = requests.Session()
                statuses[0] += 1
                continue
            code = resp.status_code
            statuses[code] += 1
            what = f"{method} {path} {len(body)} bytes"
            if code == 200 and method == "POST":
                try:
                    doc = resp.json()
                    rew = doc["reward"]
                    ok = (
                        isinstance(rew, int | float)
                        and math.isfinite(rew)
                        and -1.0 <= rew <= 1.0
                        and isinstance(doc["user_requested_aux_info"], str)
                    )
                except (ValueError, KeyError, TypeError):
                    ok = False
                if not ok:
                    bad_rewards += 1
                    print(f"bad reward for request {i}: {resp.text[:200]}", file=sys.stderr)
            if code >= 500:
                print(f"5xx for request {i}: {what}", file=sys.stderr)
        dt = time.perf_counter() - t0
        if dt > slowest[0]:
            slowest = (dt, what)
    return {
        "count": count,
        "statuses": dict(sorted(statuses.items())),
        "5xx": sum(v for k, v in statuses.items() if k >= 500),
        "non_finite": bad_rewards,
        "slowest_s": slowest[0],
        "slowest_request": slowest[1],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--count", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--url", default=None, help="fuzz a scorer already running here instead")
    args = ap.parse_args()
    t0 = time.perf_counter()
    res = run(args.count, args.seed, args.url)
    print(f"requests: {res['count']} in {time.perf_counter() - t0:.1f} s (seed {args.seed})")
    print(f"status codes: {res['statuses']}")
    print(f"5xx: {res['5xx']}")
    print(f"non-finite or out-of-range rewards: {res['non_finite']}")
    print(f"slowest request: {res['slowest_s'] * 1000:.1f} ms ({res['slowest_request']})")
    return 1 if res["5xx"] or res["non_finite"] else 0


if __name__ == "__main__":
    sys.exit(main())
