"""`python -m emulator` from the repository root: the local Vertex emulator, kept under this short name
for scripts written before it moved into the library (`python -m tunifolk.emulator` is the same).
Not installed: it works from a checkout only."""

import runpy

runpy.run_module("tunifolk.emulator", run_name="__main__", alter_sys=True)
