"""The tunifolk Pulumi program: reads the stack config and composes the components.

The components (dataset bucket, scorer service, tuning job pipeline) land with the infrastructure
issue; until then this program only exports the stack's region so `pulumi preview` has something
honest to show.
"""

import pulumi

config = pulumi.Config()
pulumi.export("region", config.get("region") or "us-central1")
