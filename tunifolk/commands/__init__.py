"""The CLI's command modules, one per command group; each exposes ``register(subcommands)``."""
