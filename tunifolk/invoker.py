"""How Vertex invokes a private Cloud Run reward, and how long that may take: one definition for the
emulator (which plays Vertex), the gcp stand-in (which plays Cloud Run and IAM) and the client and
provider (which wait for both).

* **Retries.** Vertex retries a failing reward call with exponential backoff, "after 2, 4, 8, 16,
  32 s", up to 300 s per request, then scores the sample NaN (Vertex AI docs, "Reward functions for
  reinforcement tuning", Cloud Run section). That schedule is documented for training; that the
  validation call (`tuningJobs:validateReinforcementTuningReward`) follows it too is UNCONFIRMED, and
  modelled so.
* **Propagation.** A new IAM grant is eventually consistent: policy changes "typically" apply in 2
  minutes, "potentially 7 minutes or longer" (https://cloud.google.com/iam/docs/access-change-propagation).
  Until then the grantee's calls are refused.
* **Who calls.** The reward is called by the Secure Fine-Tuning Service Agent
  `service-NUMBER@gcp-sa-vertex-tune.iam.gserviceaccount.com` with an OIDC identity token for the
  service's URL (Cloud Run's IAM invocation). When a job sets `serviceAccount` ("the service account
  that the tuningJob workload runs as", discovery document), whether that account calls the reward
  instead is UNCONFIRMED: the emulator calls as it, and the stack grants both (components/scorer.py).
  The validation call has no `serviceAccount` field: it calls as the agent (inferred).
* **Time scale.** Locally, every one of these delays runs `TUNIFOLK_TIME_SCALE` times as fast (default
  `LOCAL_TIME_SCALE`): the emulator's retries, the stand-in's propagation, and the provider's waits for
  a grant, so the proportions stay Google's. Calls to Google itself are never scaled.

The local identity token is plainly fake (`FAKE_TOKEN_PREFIX;email=…;aud=…`), nothing like Google's
signed JWTs, and carries no secret: it only says who the emulator claims to be. Pure but for reading
`TUNIFOLK_TIME_SCALE`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from urllib.parse import urlsplit

from tunifolk.project_state import tune_agent_email

TIME_SCALE_ENV = "TUNIFOLK_TIME_SCALE"
LOCAL_TIME_SCALE = 0.01
"""The local stack's default: Vertex's 62 s of retries take 0.62 s, a 2-minute propagation 1.2 s."""

REWARD_BACKOFF_S = (2.0, 4.0, 8.0, 16.0, 32.0)
"""Seconds between Vertex's attempts at one reward call (docs: "after 2, 4, 8, 16, 32 s")."""
REWARD_ATTEMPTS = len(REWARD_BACKOFF_S) + 1
REWARD_REQUEST_TIMEOUT_S = 300.0
"""Vertex's limit on one request to a Cloud Run reward ("Cloud Run — 5 min per trigger")."""
IAM_PROPAGATION_S = 120.0
"""How long a new grant takes to apply, as modelled: Google's "typically 2 minutes"."""
IAM_PROPAGATION_LONG_S = 420.0
"""Google's "potentially 7 minutes or longer": how long the provider keeps retrying a refused grant."""
PERMISSION_RETRY_INTERVAL_S = 30.0
"""Seconds the provider waits between validations refused for a grant not applied yet."""

INVOKER_ROLE = "roles/run.invoker"
FAKE_TOKEN_PREFIX = "local-fake-id-token"


def time_scale(environ: Mapping[str, str] | None = None) -> float:
    """The local time scale (`TUNIFOLK_TIME_SCALE`, default `LOCAL_TIME_SCALE`); a value that is not a
    positive number falls back to the default rather than stopping time."""
    raw = (os.environ if environ is None else environ).get(TIME_SCALE_ENV, "")
    try:
        value = float(raw)
    except ValueError:
        return LOCAL_TIME_SCALE
    return value if value > 0 else LOCAL_TIME_SCALE


def reward_retry_seconds(scale: float = 1.0) -> float:
    """The backoff of one reward call that fails every attempt: 62 s at Google's pace."""
    return sum(REWARD_BACKOFF_S) * scale


def reward_call_ceiling(scale: float = 1.0) -> float:
    """The longest Vertex may spend on one reward call: every attempt up to its request limit, plus the
    backoff between them. A reward validation is one such call per reward (run side by side), so a
    client waiting for it must wait this long (plus its own margin), or a grant still propagating ends
    the call as a read timeout instead of the permission error the provider retries on."""
    return REWARD_ATTEMPTS * REWARD_REQUEST_TIMEOUT_S + reward_retry_seconds(scale)


def permission_retry_seconds() -> float:
    """How long the provider keeps validating while the invoker grant propagates: Google's long
    propagation bound, plus one full retry schedule of Vertex's started just before it applied."""
    return IAM_PROPAGATION_LONG_S + reward_retry_seconds() + PERMISSION_RETRY_INTERVAL_S


def tune_agent(number: str) -> str:
    """The email Vertex calls a reward as: the Secure Fine-Tuning Service Agent of project `number`
    (defined with Google's other agents, tunifolk/project_state.py)."""
    return tune_agent_email(number)


def audience_of(uri: str) -> str:
    """The audience Cloud Run expects in an identity token: the service's URL without its path."""
    parts = urlsplit(uri)
    return f"{parts.scheme}://{parts.netloc}"


def fake_id_token(email: str, audience: str) -> str:
    """The local stand-in for the OIDC token Vertex sends: who calls, and for which service."""
    return f"{FAKE_TOKEN_PREFIX};email={email};aud={audience_of(audience)}"


def read_fake_id_token(authorization: str | None) -> tuple[str, str] | None:
    """(email, audience) of an `Authorization: Bearer <fake token>` header; None for anything else."""
    if not authorization or not authorization.startswith("Bearer "):
        return None
    fields = authorization.removeprefix("Bearer ").strip().split(";")
    if fields[0] != FAKE_TOKEN_PREFIX:
        return None
    values = dict(f.split("=", 1) for f in fields[1:] if "=" in f)
    email, audience = values.get("email", ""), values.get("aud", "")
    return (email, audience) if email and audience else None
