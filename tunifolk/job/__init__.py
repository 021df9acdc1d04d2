"""The RLFT tuning job as pure data and pure functions: no I/O, no Pulumi, no HTTP.

One table of fields (`fields.py`) says what the job's inputs are; everything else derives from it:
stack config parsing (`providers/stack.py`), `normalize`, `checks`, the diff policy (`diff`), the
request bodies and spec hash (`bodies`), the output keys, and the resource's args. The Pulumi
provider (`providers/tuning_job.py`), the operator CLI and the components are thin shells over it.
See docs/architecture.md.
"""
