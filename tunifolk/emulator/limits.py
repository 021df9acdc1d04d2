"""The service limits the emulator enforces, written down once for the emulator.

Where the emulator enforces the same fact as the job model (the checks, estimates and waits of
`tunifolk.job`), the number is imported from `tunifolk/job/limits.py`, so the emulator and the
client never disagree about what Vertex accepts. The rest are limits only the emulator's routes
meet (tensorboard reads, list pages, the job's stop rule); `tests/test_emulator_limits.py` holds
both kinds to the project's other definitions and to the emulator's answers at each boundary.
"""

from __future__ import annotations

from tunifolk.job.limits import (
    BATCH_SAMPLES_MULTIPLE,
    DEFAULT_BATCH_SIZE,
    DEFAULT_SAMPLES_PER_PROMPT,
    DEFAULT_SAMPLING_COUNT,
    ERRORED_REWARD_LIMIT,
    LEARNING_RATE_RANGE,
    MAX_BATCH_SAMPLES,
    MAX_LABEL_LENGTH,
    MAX_OUTPUT_TOKENS,
    MAX_TOTAL_STEPS,
    MAX_TRAINING_EXAMPLES,
    MAX_VALIDATION_EXAMPLES,
    SAMPLING_COUNT_RANGE,
    TERMINAL_STATES,
    TUNING_LOCATIONS,
)

__all__ = [
    "BATCH_SAMPLES_MULTIPLE",
    "CODE_TIMEOUT_S",
    "CONCURRENT_TUNING_JOBS",
    "CONCURRENT_TUNING_JOBS_METRIC",
    "DEFAULT_BATCH_SIZE",
    "DEFAULT_RUN_STEPS",
    "DEFAULT_SAMPLES_PER_PROMPT",
    "DEFAULT_SAMPLING_COUNT",
    "ERRORED_REWARD_LIMIT",
    "JOB_PAGE_SIZE",
    "LEARNING_RATE_RANGE",
    "MAX_BATCH_READ",
    "MAX_BATCH_SAMPLES",
    "MAX_DEFAULT_EPOCHS",
    "MAX_LABEL_LENGTH",
    "MAX_OUTPUT_TOKENS",
    "MAX_READ_POINTS",
    "MAX_SERIES_POINTS",
    "MAX_TOTAL_STEPS",
    "MAX_TRAINING_EXAMPLES",
    "MAX_VALIDATION_EXAMPLES",
    "MIN_VALIDATION_SPLIT",
    "PAGE_SIZE",
    "SAMPLING_COUNT_RANGE",
    "TERMINAL_STATES",
    "TUNING_LOCATIONS",
    "VALIDATION_SPLIT_SHARE",
]

#: Time series per `tensorboards:batchRead` call (the client's `tunifolk.vertex.BATCH_READ_LIMIT`).
MAX_BATCH_READ = 20

#: Points a time series keeps (older ones are thinned), the default `maxDataPoints` of a read, and
#: the most a read may ask for (-1 asks for every point, as the discovery document says).
MAX_SERIES_POINTS = 1000
MAX_READ_POINTS = 10000

#: tuningJobs.list: (default, largest) pageSize; the tensorboard lists: the same pair.
JOB_PAGE_SIZE = (50, 100)
PAGE_SIZE = (50, 1000)

#: A project's quota of tuning jobs running at once, over every region. Google's tuning pages said
#: "Quota is enforced on the number of concurrent tuning jobs. Every project comes with a default
#: quota to run at least one tuning job. This is a global quota, shared across all available regions
#: and supported models" (Gemini supervised tuning, "Quota"; quoted from memory, UNCONFIRMED for RLFT,
#: as are the metric's name and its ErrorInfo, `CONCURRENT_TUNING_JOBS_METRIC`). `tunifolk local
#: start` runs the emulator with it; the bare emulator has no limit unless `--concurrent-tuning-jobs`.
CONCURRENT_TUNING_JOBS = 1
CONCURRENT_TUNING_JOBS_METRIC = "aiplatform.googleapis.com/global_concurrent_tuning_jobs"


#: Without a validation set the service splits this share of the training set off, at least
#: MIN_VALIDATION_SPLIT examples (all of them when the set is smaller).
VALIDATION_SPLIT_SHARE = 0.25
MIN_VALIDATION_SPLIT = 50

#: Without epochCount or stepCount: enough epochs for about this many steps, at most MAX_DEFAULT_EPOCHS.
DEFAULT_RUN_STEPS = 110
MAX_DEFAULT_EPOCHS = 10

#: Google's limit on one code-execution `evaluate` call (the reward-functions page;
#: docs/google-contract.md, REW-04); the emulator scales it by its --time-scale.
CODE_TIMEOUT_S = 100.0
