"""The CLI follows the Pulumi stack the user selected (issue 24, item 1), with the real engine.

In the local flow a user runs `pulumi stack init local` (which selects it) and then `tunifolk list`:
that must read `Pulumi.local.yaml` (project tunifolk-local), say so, and, before `pulumi up`, name the
true reason no `scorer_uri` can be read rather than claim there is no Pulumi CLI.
"""

from __future__ import annotations

from engine import LocalStack


def test_the_cli_reads_the_selected_stack_and_says_so(stack: LocalStack) -> None:
    before = stack.tunifolk("estimate")  # no stack selected yet: the default, dev, said in the title
    assert "estimate for stack dev" in before.stdout and "tunifolk: stack" not in before.stderr

    stack.init()  # `pulumi stack init local` selects it, as for a user
    listed = stack.tunifolk("list")
    assert "tunifolk: stack local (the one `pulumi stack select` chose" in listed.stderr
    assert "tuning jobs in tunifolk-local/us-central1" in listed.stdout

    refused = stack.tunifolk("validate", check=False)
    assert refused.code == 2, refused.output
    assert "--scorer-uri is needed: no `pulumi stack output scorer_uri` to read" in refused.stderr
    assert "--stack local" in refused.stderr and "no Pulumi CLI" not in refused.stderr

    chosen = stack.tunifolk("estimate", "--stack", "dev")  # a flag still wins, silently
    assert "estimate for stack dev" in chosen.stdout and "tunifolk: stack" not in chosen.stderr
