"""The service's numbers and state sets, each written down once.

Sources: the aiplatform v1beta1 discovery document and the Vertex RLFT documentation, as
summarised in docs/vertex.md ("Limits" and "Sharp edges"). Everything that checks, estimates or
waits imports its number from here.
"""

from __future__ import annotations

#: Regions that tune RLFT (never `global`): docs/vertex.md, edge 1. Google's RLFT overview lists
#: us-central1; the seed notebook saw europe-west4 tune too, so it is accepted and warns at preview.
TUNING_LOCATIONS = ("us-central1", "europe-west4")
GUIDE_TUNING_LOCATIONS = ("us-central1",)

#: Dataset sizes the service accepts (docs/vertex.md, edge 17).
MAX_TRAINING_EXAMPLES = 5000
MAX_VALIDATION_EXAMPLES = 500

#: The service stops at 500 steps whatever epochCount says (docs/vertex.md, edge 9).
MAX_TOTAL_STEPS = 500

#: batchSize × samplesPerPrompt must be a multiple of 16 and at most this (text) (docs/vertex.md, edge 8).
BATCH_SAMPLES_MULTIPLE = 16
MAX_BATCH_SAMPLES = 8192
MAX_MULTIMODAL_BATCH_SAMPLES = 1024
"""The same product's cap for multimodal data (image, audio, video parts): the hyperparameters page."""
MEDIA_PARTS = ("fileData", "inlineData")
"""A Content part that is not text: its example makes the tuning data multimodal."""

#: maxOutputTokens includes thinking tokens (docs/vertex.md, edge 11).
MAX_OUTPUT_TOKENS = 32768

#: learningRateMultiplier range (docs/vertex.md, edge 12).
LEARNING_RATE_RANGE = (0.25, 4.0)

#: An autorater's samplingCount range, and how many rewards one composite config may hold.
SAMPLING_COUNT_RANGE = (1, 32)
MAX_REWARDS = 16

#: Label keys and values: at most 64 characters (Google's label rules).
MAX_LABEL_LENGTH = 64

#: A tuned model's display name: at most 128 characters (the discovery document's TuningJob).
MAX_DISPLAY_NAME_LENGTH = 128


def label_ok(text: str, key: bool) -> bool:
    """A label key or value as the discovery document's `TuningJob.labels` allows it: at most
    MAX_LABEL_LENGTH of lowercase letters (of any script: "International characters are allowed"),
    digits, `_` and `-`; a key is not empty and starts with a lowercase letter."""
    if len(text) > MAX_LABEL_LENGTH or (key and not (text and text[0].isalpha() and not text[0].isupper())):
        return False
    return all((c.isalpha() and not c.isupper()) or c.isdigit() or c in "_-" for c in text)


#: Service defaults used when a hyperparameter or judge setting is not given.
DEFAULT_BATCH_SIZE = 32
DEFAULT_SAMPLES_PER_PROMPT = 16
DEFAULT_SAMPLING_COUNT = 4

#: Google's default epochCount when neither it nor stepCount is set: min(110 × batchSize / prompts,
#: 10), so a run sees about 110 steps, and at most 10 epochs of a small dataset (the RLFT
#: hyperparameters page). How the service rounds a fractional epoch is UNCONFIRMED.
DEFAULT_EPOCH_TARGET_STEPS = 110
DEFAULT_EPOCH_CAP = 10

#: The service stops a job once more than this share of one reward's invocations errored (an RPC
#: error or a NaN: the reward-functions guide, "more than 80%"). Whether the share counts the run so
#: far or a recent window is UNCONFIRMED: the emulator stops on the run so far (`over_error_limit`);
#: `status` fails on that and warns as soon as one step's share passes the line (tunifolk/health.py).
ERRORED_REWARD_LIMIT = 0.8


def over_error_limit(errored: float, calls: float, limit: float = ERRORED_REWARD_LIMIT) -> bool:
    """Whether `errored` of `calls` reward invocations stop the job (`limit`: the emulator's setting)."""
    return calls > 0 and errored / calls > limit


#: Base models Google's RLFT pages name (the quick start tunes gemini-3.5-flash); whether others tune
#: is UNCONFIRMED, so another base model warns at preview rather than fails.
RLFT_BASE_MODELS = ("gemini-3.5-flash",)

#: thinkingLevel values the RLFT hyperparameters guide lists; the API's enum also has LOW and MEDIUM
#: (the discovery document). The seed ran HIGH; any other value warns at preview.
GUIDE_THINKING_LEVELS = ("MINIMAL", "HIGH")

#: Job states (`JobState` in the discovery document). Live jobs bill or will; terminal ones never
#: change again. A wait that ends in FAILED_STATES is a failure.
LIVE_STATES = frozenset(
    {
        "JOB_STATE_PENDING",
        "JOB_STATE_QUEUED",
        "JOB_STATE_RUNNING",
        "JOB_STATE_CANCELLING",
        "JOB_STATE_PAUSED",
        "JOB_STATE_UPDATING",
    }
)
TERMINAL_STATES = frozenset(
    {
        "JOB_STATE_SUCCEEDED",
        "JOB_STATE_PARTIALLY_SUCCEEDED",
        "JOB_STATE_FAILED",
        "JOB_STATE_CANCELLED",
        "JOB_STATE_EXPIRED",
    }
)
FAILED_STATES = frozenset({"JOB_STATE_FAILED", "JOB_STATE_CANCELLED", "JOB_STATE_EXPIRED"})
SUCCEEDED_STATES = TERMINAL_STATES - FAILED_STATES
#: Live states a new job may be adopted in (a cancelling one is on its way out).
ADOPTABLE_STATES = LIVE_STATES - {"JOB_STATE_CANCELLING"}
