"""The tuning dataset: build Derja poem prompts for the scorer's forms, and check a JSONL file against
Google's `Example` shape and the scorer's catalogue. Pure: no Pulumi, no HTTP.

`build` writes the lines, `check` checks them, `spec` holds what both share (limits, reference keys,
system instructions, the token estimate), `themes` is the theme data table. Import a name from the
module that holds it.
"""
