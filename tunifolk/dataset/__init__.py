"""The tuning dataset: build Derja poem prompts for the scorer's forms, and check a JSONL file against
Google's `Example` shape and the scorer's catalogue. Pure: no Pulumi, no HTTP."""

from tunifolk.dataset.core import *  # noqa: F403  (split into build and check next)
from tunifolk.dataset.core import SYSTEM_INSTRUCTIONS  # noqa: F401
