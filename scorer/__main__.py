"""``python -m scorer``: serve the reward contract on ``$HOST:$PORT`` (defaults 0.0.0.0:8080).

uvicorn with uvloop and httptools, one process (Cloud Run gives one CPU per instance and scales
by instances), no access log (Vertex calls hundreds of times a second), keep-alive longer than
Cloud Run's front end keeps idle connections.
"""

from __future__ import annotations

import os
import sys
from typing import Any


def serve(app: Any = None) -> None:
    """Run ``app`` (the scorer by default) the way the service runs in production."""
    import uvicorn

    if app is None:
        from scorer.app import app as scorer_app

        app = scorer_app
    host = os.environ.get("HOST", "0.0.0.0")
    try:
        port = int(os.environ.get("PORT", "8080"))
    except ValueError:
        sys.exit(f"PORT must be a number, got {os.environ.get('PORT')!r}")
    uvicorn.run(
        app,
        host=host,
        port=port,
        loop="uvloop",
        http="httptools",
        lifespan="off",
        access_log=False,
        log_level=os.environ.get("LOG_LEVEL", "warning"),
        timeout_keep_alive=620,
        server_header=False,
        date_header=False,
        h11_max_incomplete_event_size=MAX_HEADER,
    )


MAX_HEADER = 64 * 1024

if __name__ == "__main__":
    serve()
