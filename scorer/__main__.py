"""``python -m scorer``: serve the reward contract on ``$HOST:$PORT`` (defaults 0.0.0.0:8080).

0.0.0.0 is the container's default, which Cloud Run needs; every local launcher sets
``HOST=127.0.0.1``. It takes no arguments: ``--help`` prints how it is configured and exits 0,
anything else is a usage error (exit 2), and neither starts a server. uvicorn with uvloop and
httptools, no access log (Vertex calls hundreds of times a second), no proxy-header rewriting,
keep-alive longer than Cloud Run's front end keeps idle connections. One process per vCPU:
``WEB_CONCURRENCY=N`` runs N, each with its own listening socket (``SO_REUSEPORT``) so the kernel
spreads connections evenly (docs/scorer.md, "Speed").
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import socket
import sys
import threading
import time
from typing import Any

APP = "scorer.app:app"
"""The scorer as an import string."""
MAX_HEADER = 64 * 1024


def parser() -> argparse.ArgumentParser:
    """The command line: no options but ``--help``; the settings are environment variables."""
    return argparse.ArgumentParser(
        prog="python -m scorer",
        description="Serve the tunifolk reward scorer (POST any path: the Cloud Run reward contract; "
        "GET /healthz: 200).",
        epilog="environment: HOST (default 0.0.0.0, the container's; use 127.0.0.1 locally), "
        "PORT (default 8080), WEB_CONCURRENCY (processes on the port, default 1), "
        "LOG_LEVEL (default warning)",
    )


def main(argv: list[str] | None = None) -> None:
    """Parse the command line (``--help`` exits here, before any socket is bound), then serve."""
    parser().parse_args(argv)
    serve()


def _settings() -> dict[str, Any]:
    return dict(
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
    if workers <= 1:
        uvicorn.run(app, host=host, port=port, workers=1, **_settings())
    else:
        _serve_processes(app, host, port, workers)


def _listen(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    sock.listen(2048)
    return sock


def _serve_processes(app: str, host: str, port: int, workers: int) -> None:
    """``workers`` forked processes, each serving ``app`` on its own SO_REUSEPORT socket. The app
    is imported once before forking (the lexicon is loaded once and shared). SIGTERM or SIGINT
    stops them all; if one dies, the others are stopped and the exit status says so, so that the
    platform restarts the instance. Each process also exits if this one disappears (SIGKILL), so
    that none is left holding the port."""
    import uvicorn

    __import__(app.split(":")[0])
    parent = os.getpid()
    children: list[int] = []
    for _ in range(workers):
        pid = os.fork()
        if pid == 0:  # a worker process
            code = 1
            try:
                threading.Thread(target=_exit_with_parent, args=(parent,), daemon=True).start()
                uvicorn.Server(uvicorn.Config(app, **_settings())).run(sockets=[_listen(host, port)])
                code = 0
            finally:
                os._exit(code)
        children.append(pid)

    def stop(signum: int = signal.SIGTERM, _frame: object = None) -> None:
        for pid in children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    status = 0
    while children:
        try:
            pid, code = os.wait()
        except ChildProcessError:
            break
        if pid in children:
            children.remove(pid)
            if code and not status:  # one died: stop the rest
                status = 1
                stop()
    sys.exit(status)


def _exit_with_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(1.0)
    os.kill(os.getpid(), signal.SIGTERM)


if __name__ == "__main__":
    main()
