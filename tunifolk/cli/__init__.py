"""The `tunifolk` operator CLI: a thin layer over the library (the job model, the Vertex client,
operations, metrics, health). `main` is the console script's entry point."""

from tunifolk.cli.main import main

__all__ = ["main"]
