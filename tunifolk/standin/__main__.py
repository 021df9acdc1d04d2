"""`python -m standin [engine flags] [ENGINE_ADDRESS]`: serve the gcp stand-in as a Pulumi plugin.

The engine starts `pulumi-resource-gcp` (the launcher `make engine` writes into build/engine/bin) with
logging flags and its own address; the stand-in needs neither and prints only its port on stdout.
"""

from tunifolk.standin.server import serve

if __name__ == "__main__":
    serve()
