"""Start the project's real servers as processes for tests and benchmarks.

Tests talk to real local HTTP servers, never to mocks of our own code. The helpers are the CLI's
own (`tunifolk/local.py`), so tests start `python -m emulator` and `python -m scorer` exactly as
`tunifolk demo` and a user do.
"""

from tunifolk.cli.local import ROOT, emulator, free_port, scorer

__all__ = ["ROOT", "emulator", "free_port", "scorer"]
