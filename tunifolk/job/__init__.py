"""The RLFT tuning job as pure data and pure functions: no I/O, no Pulumi, no HTTP.

One table of fields (`fields.py`, its rows named by the constants of `field_names.py`) says what
the job's inputs and outputs are; everything else derives from it: stack config parsing
(`tunifolk/stack.py`), `normalize`, `checks`, the diff policy (`diff`), the request bodies and spec
hash (`bodies`), the outputs, the resource's args, and docs/config.md (`docs`). The Pulumi
provider (`providers/tuning_job.py`), the operator CLI and the components are thin shells over it.
See docs/architecture.md.
"""
