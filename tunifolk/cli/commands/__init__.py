"""The operator CLI's commands, one module each, named after the command.

A module joins the CLI by exposing `register(subcommands) -> None`, which adds its parser and sets
`func` (`func(args) -> int`, the exit code) with `set_defaults`; `tunifolk/cli/main.py` lists the
modules in the order `--help` shows them. Expected failures are raised as `tunifolk.errors`
exceptions, which the CLI turns into one line and an exit code.
"""
