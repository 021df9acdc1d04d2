"""Servers on this machine: a free loopback port, a wait until a server answers, pid files, a stop by pid.

The CLI (`tunifolk local`, `tunifolk demo`), the gcp stand-in's Cloud Run services, the tests and the
benchmarks all start servers here and stop them again; these functions are the one way they do it, so
a server is waited for, recorded and stopped alike everywhere. Standard library only: Linux's /proc
says which program a pid runs, and a loopback health check never goes through a proxy.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TypeVar

from tunifolk.errors import TunifolkError

LOOPBACK = "127.0.0.1"
POLL_S = 0.05
"""How often a wait looks again: short, since a server's start is what the user waits for."""
STOP_GRACE_S = 10.0
"""How long a stopped server has to exit on SIGTERM (close its sockets, write its state) before SIGKILL."""
EXEC_WAIT_S = 5.0
"""The longest `start_detached` waits for a new program's arguments to be readable (microseconds, usually)."""
KILL_WAIT_S = 5.0
"""How long to wait for a SIGKILLed process to be gone, so its port is free when `stop_pid` returns."""

T = TypeVar("T")


class ProcessError(TunifolkError, RuntimeError):
    """A server started here exited, or did not answer in time: one line, with its log's last line."""


# --------------------------------------------------------------------------- ports


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing holds now, chosen by the kernel (a bind to port 0).

    The probe closes before the caller's server binds the port, so another program could take it in
    between; the server's own bind error then names the port. A server that can report the port it
    bound (`python -m tunifolk.emulator --port 0`) avoids even that."""
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return int(probe.getsockname()[1])


def port_free(port: int) -> bool:
    """Whether 127.0.0.1:`port` can be bound now, so a default port that another program holds is
    passed over for a free one instead of failing the start."""
    with socket.socket() as probe:
        try:
            probe.bind((LOOPBACK, port))
        except OSError:
            return False
    return True


# --------------------------------------------------------------------------- answers

_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))
"""An opener that ignores `http_proxy`: a proxy cannot reach this machine's loopback servers."""


def http_status(url: str, timeout: float = 1.0) -> int | None:
    """The HTTP status a GET of `url` answers with, or None when nothing answers (refused, reset, too
    slow): a server still starting, or gone."""
    try:
        with _DIRECT.open(url, timeout=timeout) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as exc:  # an answer all the same
        exc.close()
        return exc.code
    except (OSError, http.client.HTTPException):  # URLError and timeouts are OSErrors
        return None


def healthy(url: str, timeout: float = 1.0) -> bool:
    """Whether the server at base `url` answers `GET /healthz` with 200, the check every server of the
    project serves (the scorer, the emulator)."""
    return http_status(f"{url}/healthz", timeout) == 200


def answers(url: str, timeout: float = 1.0) -> bool:
    """Whether anything answers HTTP at base `url`, whatever the status: Cloud Run's front refuses a
    `/healthz` without a token, and is up all the same."""
    return http_status(f"{url}/healthz", timeout) is not None


# --------------------------------------------------------------------------- waits


def wait_until(
    ready: Callable[[], T | None],
    *,
    what: str,
    timeout: float,
    proc: subprocess.Popen | None = None,
    log: Path | None = None,
    poll: float = POLL_S,
) -> T:
    """Poll `ready()` until it returns something truthy, and return that. When `proc` (the server
    waited for) exits first the wait ends at once, since a server that dies at start would otherwise
    cost the whole timeout; either failure is one line naming `what` and the last line of `log`.
    `poll` is the time between looks (a benchmark of start times wants it shorter)."""
    deadline = time.monotonic() + timeout
    while True:
        if proc is not None and proc.poll() is not None:
            raise ProcessError(f"{what} exited with {proc.returncode}{_tail(log)}")
        found = ready()
        if found:
            return found
        if time.monotonic() >= deadline:
            raise ProcessError(f"{what} did not answer within {timeout:g}s{_tail(log)}")
        time.sleep(poll)


def wait_healthy(
    url: str,
    *,
    proc: subprocess.Popen | None = None,
    timeout: float = 20.0,
    what: str | None = None,
    log: Path | None = None,
) -> None:
    """Wait until the server at base `url` is `healthy`; see `wait_until` for `proc` and `log`. The
    default timeout allows for a loaded machine: the scorer imports its lexicon before it listens."""
    wait_until(lambda: healthy(url), what=what or f"the server at {url}", timeout=timeout, proc=proc, log=log)


PORT_ATTEMPTS = 3
"""Starts of a server on a free port before its failure is the caller's (`on_free_port`)."""


def on_free_port(
    run: Callable[[int], T], *, lost: Callable[[int], bool], attempts: int = PORT_ATTEMPTS
) -> tuple[T, int]:
    """``run(port)`` on a `free_port`; return what it returns and the port.

    The port is free when probed, but a server binds it a moment later, and any outgoing connection
    on the machine may be given that port meanwhile (the kernel hands out the same range). A run that
    fails with a `ProcessError` is tried again on another port while ``lost(port)`` says the port was
    lost that way, up to `attempts` runs in all; any other failure, and the last, is raised as is."""
    for attempt in range(1, attempts + 1):
        port = free_port()
        try:
            return run(port), port
        except ProcessError:
            if attempt == attempts or not lost(port):
                raise
    raise AssertionError("attempts must be at least 1")


def serve_on_free_port(
    start: Callable[[int], subprocess.Popen],
    *,
    what: str,
    attempts: int = PORT_ATTEMPTS,
    timeout: float = 20.0,
    log: Path | None = None,
) -> tuple[subprocess.Popen, int]:
    """Start a server with ``start(port)`` on a `free_port` and wait until it is `healthy` (as
    `wait_healthy` does, `timeout` and `log` included); return the process and the port it serves on.

    A server that loses its port before binding it exits at once: a start whose server exited is
    tried again on another port (`on_free_port`). A server that exits for another reason fails each
    time and the last failure is raised, one line; one that never answers is stopped and its timeout
    raised at once."""
    exited: list[bool] = []

    def serve(port: int) -> subprocess.Popen:
        proc = start(port)
        try:
            wait_healthy(f"http://{LOOPBACK}:{port}", proc=proc, what=what, timeout=timeout, log=log)
        except ProcessError:
            exited.append(proc.poll() is not None)
            stop(proc)
            raise
        return proc

    return on_free_port(serve, lost=lambda _port: exited[-1], attempts=attempts)


def _tail(log: Path | None) -> str:
    """` (last line of the log); see LOG`, or nothing without a log."""
    if log is None:
        return ""
    try:
        lines = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    except OSError:
        lines = []
    return f" ({lines[-1].strip() if lines else 'no output'}); see {log}"


# --------------------------------------------------------------------------- pids


def alive(pid: int) -> bool:
    """Whether `pid` is a process that has not exited. A zombie (exited, waiting to be reaped) has not
    let go of its pid but is gone all the same: it holds no port and will never answer."""
    stat = _stat(pid)
    return stat is not None and stat[0] not in ("Z", "X")


def command_line(pid: int) -> list[str] | None:
    """The arguments `pid` runs with, from /proc, or None when it is not `alive`. Empty for a moment
    while the process execs a new program (see `start_detached`)."""
    if not alive(pid):
        return None
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    return raw.decode("utf-8", "replace").split("\0")[:-1]


def runs(pid: int, *markers: str) -> bool:
    """Whether `pid` is `alive` with every one of `markers` among its arguments (any live process when
    none are given). A pid file can outlive its process (a reboot, a SIGKILL) and the kernel reuses
    pids, so a pid alone never says the process is still ours; its arguments do."""
    if not markers:
        return alive(pid)
    args = command_line(pid)
    return args is not None and all(marker in args for marker in markers)


def start_detached(
    command: list[str],
    *,
    log: Path,
    pid_file: Path,
    cwd: Path,
    env: Mapping[str, str] | None = None,
) -> subprocess.Popen:
    """Start a server that outlives the command that starts it (`tunifolk local start` returns; the
    engine kills its plugins after each command): a session of its own, so the caller's Ctrl-C and
    process group do not reach it; no stdin; its output appended to `log`; its pid in `pid_file`,
    so a later command can find and stop it. `env` adds to this process's environment."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as out:
        proc = subprocess.Popen(
            command,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, **(env or {})},
            start_new_session=True,
        )
    # Popen returns once exec has begun, a moment before the new program's arguments are readable:
    # wait for them, so that what the pid file names is recognisable (`runs`) from the start.
    deadline = time.monotonic() + EXEC_WAIT_S
    while proc.poll() is None and not command_line(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.001)
    write_pid(pid_file, proc.pid)
    return proc


def write_pid(path: Path, pid: int) -> None:
    """Record `pid` in `path`, whole or not at all (a rename), so a reader never sees half a number."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.tmp")
    partial.write_text(f"{pid}\n")
    partial.replace(path)


def read_pid(path: Path, *markers: str) -> int | None:
    """The pid `path` records when that process still runs with `markers` in its arguments (`runs`),
    else None: a missing, garbled or stale file reads as nothing running."""
    try:
        pid = int(path.read_text().strip())
    except (OSError, ValueError):
        return None
    return pid if runs(pid, *markers) else None


def remove_pid(path: Path) -> None:
    """Forget the record in `path`; nothing to do when it is already gone."""
    path.unlink(missing_ok=True)


def stop_pid(pid: int, *markers: str, grace: float = STOP_GRACE_S) -> bool:
    """Stop `pid` if it runs with `markers` in its arguments: SIGTERM, up to `grace` seconds for it to
    exit cleanly, then SIGKILL; whether it was running. A pid that is not (or no longer) ours is never
    signalled. An exited child of this process is left for its `Popen` to reap, exit status intact
    (until then it is a zombie, which holds no port and counts as gone)."""
    if not runs(pid, *markers):
        return False
    _signal(pid, signal.SIGTERM)
    if not _gone_within(pid, markers, grace):
        _signal(pid, signal.SIGKILL)
        _gone_within(pid, markers, KILL_WAIT_S)
    return True


def stop_pid_file(path: Path, *markers: str, grace: float = STOP_GRACE_S) -> int | None:
    """Stop the process `path` records (when it still runs with `markers`, see `stop_pid`) and remove
    the file, stale or not: the pid stopped, or None."""
    pid = read_pid(path, *markers)
    if pid is not None:
        stop_pid(pid, *markers, grace=grace)
    remove_pid(path)
    return pid


def stop(proc: subprocess.Popen, grace: float = STOP_GRACE_S) -> None:
    """Stop a server this process started and holds (`stop_pid`'s SIGTERM, then SIGKILL), and reap it,
    so `proc.returncode` says how it ended."""
    if proc.poll() is None:
        stop_pid(proc.pid, grace=grace)
    proc.wait()


def descendants(pid: int, skip: Callable[[int], bool] | None = None) -> list[int]:
    """Every process below `pid`, from each process's parent in /proc (the tree a crash would take
    down). `skip` prunes a process and all below it (a server meant to outlive its starter)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").glob("[0-9]*"):
        stat = _stat(int(entry.name))
        if stat is not None:  # else gone meanwhile
            children.setdefault(int(stat[1]), []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if skip is None or not skip(child):
                found.append(child)
                todo.append(child)
    return found


def _stat(pid: int) -> list[str] | None:
    """`/proc/PID/stat` after the command name (which may hold spaces): [state, ppid, …], or None."""
    if pid <= 0:
        return None
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _signal(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, sig)


def _gone(pid: int, markers: tuple[str, ...]) -> bool:
    """Whether `pid`, ours a moment ago, is gone: exited (a zombie or no process), or running another
    program (its pid taken again). A process that is exiting has let go of its arguments before its
    files, its ports included: no arguments while alive is not gone yet."""
    args = command_line(pid)
    if args is None:
        return True
    return bool(args) and not all(marker in args for marker in markers)


def _gone_within(pid: int, markers: tuple[str, ...], seconds: float) -> bool:
    """Whether `pid` is gone within `seconds`. Not reaped here: a zombie keeps its pid (no stranger can
    take it meanwhile) and reads as gone (`command_line`)."""
    deadline = time.monotonic() + seconds
    while True:
        if _gone(pid, markers):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(POLL_S)
