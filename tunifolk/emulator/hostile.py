"""Hostile readings: where Google's pages are silent or disagree, the emulator can play the worst one.

The emulator and tunifolk's client agree because the same people wrote both; that proves nothing
about Vertex. Google's documents are the contract, and where they leave a choice open the client must
survive every choice. `--hostile` (`Options.hostile = Hostile.every()`) turns on every reading at
once; `--hostile-reading NAME` (repeatable) turns on one. Off (the default), the emulator plays the
reading the rest of docs/vertex.md describes.

Each reading names the page that is silent or that disagrees:

- `tuning-job-id`: the Cloud Run reward request's `metadata` carries the job id as the reward-functions
  guide spells it, `tuningJobId`, as a JSON number (not ProtoJSON's int64 string). The REST reference
  of `ReinforcementTuningCloudRunRewardScorer` writes `tuning_job_id`; the guide writes `tuningJobId`
  and shows numbers. A 19-digit number is the awkward choice: past 2**53, so a parser that reads JSON
  numbers as doubles corrupts it, and a reader that expects a string gets an int.
  https://docs.cloud.google.com/gemini-enterprise-agent-platform/models/tuning/reinforcement-tuning/reinforcement-tuning-job/reward-functions
  https://docs.cloud.google.com/gemini-enterprise-agent-platform/reference/rest/v1beta1/projects.locations.tuningJobs
- `invoker-nan`: a Cloud Run reward the tuning agent may not invoke (no run.invoker grant, or one not
  yet propagated) shows as a bare NaN reward, not as PERMISSION_DENIED: Google's troubleshooting note
  for Cloud Run rewards names the symptom (NaN rewards) and no status code (which page carries the note
  is UNCONFIRMED here; the reward-functions guide documents Cloud Run rewards), and the reference of
  `ReinforcementTuningCloudRunRewardScorer` says only that the agent "must be granted the permission
  (e.g. by granting roles/run.invoker in IAM)", not what a call without it returns. So the validate
  answer carries `"reward": "NaN"` for that reward and `"overallReward": "NaN"`, with no `errorStatus`
  at all (no code for a client to retry on). During a job such rollouts are errored, as every NaN is.
  https://docs.cloud.google.com/gemini-enterprise-agent-platform/models/tuning/reinforcement-tuning/reinforcement-tuning-job/reward-functions
  https://docs.cloud.google.com/gemini-enterprise-agent-platform/reference/rest/v1beta1/projects.locations.tuningJobs
  https://docs.cloud.google.com/gemini-enterprise-agent-platform/reference/rest/v1beta1/projects.locations.tuningJobs/validateReinforcementTuningReward
- `unversioned-model`: `tunedModel.model` comes back as `projects/P/locations/L/models/M`, without
  `@N`, as in the quick start's example response (as the lead read it; UNCONFIRMED here which suffix
  Vertex writes), even when the job made version N of a pre-tuned
  model M (continuous tuning, which says the run continues from "a version or checkpoint" of it and
  does not say how the result is named). The version is still created on M: `DELETE models/M` from
  such a name deletes every version.
  https://docs.cloud.google.com/gemini-enterprise-agent-platform/models/tuning/reinforcement-tuning/quick-start
  https://docs.cloud.google.com/gemini-enterprise-agent-platform/models/tuning/reinforcement-tuning/continuous-tuning
- `single-reward-series`: a job with a `singleRewardConfig` writes only the job-wide series
  (`/train_mean_reward`, `/eval_mean_reward`, latencies, lengths, `/learnable_prompt_ratio`), no
  `R/…` per-reward series (no `R/train_rpc_error_ratio`). The metrics page lists the job-wide series
  as what every job emits at every step and does not say that a job with a single reward also gets the
  per-reward ones. The pages lean the other way as much as they are silent: the console quick start
  says a reward's name prefixes the metrics the monitoring view shows, which a single reward has too;
  this reading is the one the client must survive, not the likelier one.
  https://docs.cloud.google.com/gemini-enterprise-agent-platform/models/tuning/reinforcement-tuning/reinforcement-tuning-job/job-status-metrics-monitoring
  https://docs.cloud.google.com/gemini-enterprise-agent-platform/models/tuning/reinforcement-tuning/quick-start-console
- `judge-prose`: the stand-in judge always writes a sentence around its answer ("I rate this poem
  0.42."), even when the prompt asks for a bare number; only a REGEX_EXTRACT parse gets the number
  out. The reward-functions guide pairs its autorater prompt with a REGEX_EXTRACT parse and says the
  conversion scorer converts the parsed answer; what a judge writes is up to the model.
  https://docs.cloud.google.com/gemini-enterprise-agent-platform/models/tuning/reinforcement-tuning/reinforcement-tuning-job/reward-functions
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import Any

#: `--hostile-reading` names → `Hostile` fields.
READINGS = {
    "tuning-job-id": "camel_job_id",
    "invoker-nan": "invoker_nan",
    "unversioned-model": "unversioned_model",
    "single-reward-series": "no_single_reward_series",
    "judge-prose": "judge_prose",
}


@dataclass(frozen=True)
class Hostile:
    """Which hostile readings are on (module docstring: each one, and the Google page it rests on)."""

    #: `metadata.tuningJobId` as a JSON number, instead of `metadata.tuning_job_id` as a string.
    camel_job_id: bool = False
    #: A 403 from the Cloud Run reward is a bare NaN reward: no errorStatus, no code 7.
    invoker_nan: bool = False
    #: `tunedModel.model` without `@N`, though the job made version N.
    unversioned_model: bool = False
    #: A single-reward job writes no per-reward (`R/…`) series.
    no_single_reward_series: bool = False
    #: The judge writes words around its answer even when the prompt asks for nothing else.
    judge_prose: bool = False

    @classmethod
    def every(cls) -> Hostile:
        """Every reading on: what `--hostile` gives."""
        return cls(**{f.name: True for f in fields(cls)})

    @classmethod
    def of(cls, names: Iterable[str]) -> Hostile:
        """The readings named by `--hostile-reading` (keys of READINGS)."""
        return cls(**{READINGS[n]: True for n in names})

    @property
    def any(self) -> bool:
        return any(getattr(self, f.name) for f in fields(self))

    def reward_metadata(self, step: int, job_id: str) -> dict[str, Any]:
        """The `metadata` of a Cloud Run reward request for `step` of job `job_id` (validation: 0, "0")."""
        if self.camel_job_id:
            return {"step": step, "tuningJobId": int(job_id)}
        return {"step": step, "tuning_job_id": job_id}
