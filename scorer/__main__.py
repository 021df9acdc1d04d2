"""``python -m scorer``: serve the reward contract on ``$HOST:$PORT`` (defaults 0.0.0.0:8080).

uvicorn with uvloop and httptools, no access log (Vertex calls hundreds of times a second), no
proxy-header rewriting (nothing reads the client address), keep-alive longer than Cloud Run's front
end keeps idle connections.

One process by default. Scoring is CPU-bound Python, so a process uses one CPU at most, and Cloud
Run gives an instance ``cpu`` vCPUs (the stack's default is 1) and scales by instances: one process
per vCPU is the right shape, and with one vCPU that is one process. ``WEB_CONCURRENCY=N`` (uvicorn's
and gunicorn's variable) runs N worker processes on one port, for an instance with N vCPUs; see
docs/scorer.md, "Speed".
"""

from __future__ import annotations

import os
import sys

APP = "scorer.app:app"
"""The scorer as an import string: worker processes import it themselves."""


def serve(app: str = APP) -> None:
    """Run ``app`` (an import string, the scorer by default) the way the service runs in production."""
    import uvicorn

    host = os.environ.get("HOST", "0.0.0.0")
    try:
        port = int(os.environ.get("PORT", "8080"))
    except ValueError:
        sys.exit(f"PORT must be a number, got {os.environ.get('PORT')!r}")
    try:
        workers = int(os.environ.get("WEB_CONCURRENCY") or "1")
    except ValueError:
        sys.exit(f"WEB_CONCURRENCY must be a number, got {os.environ.get('WEB_CONCURRENCY')!r}")
    uvicorn.run(
        app,
        host=host,
        port=port,
        workers=max(1, workers),
        loop="uvloop",
        http="httptools",
        lifespan="off",
        access_log=False,
        proxy_headers=False,
        log_level=os.environ.get("LOG_LEVEL", "warning"),
        timeout_keep_alive=620,
        server_header=False,
        date_header=False,
        h11_max_incomplete_event_size=MAX_HEADER,
    )


MAX_HEADER = 64 * 1024

if __name__ == "__main__":
    serve()
