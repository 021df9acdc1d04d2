"""The process toolkit (tunifolk/processes.py) on real processes and real sockets.

Each test starts what it needs (a Python child, a stdlib HTTP server on a free port) and stops it;
none takes more than a second or two.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tunifolk import processes
from tunifolk.errors import TunifolkError

SLEEPER = "import time; print('ready', flush=True); time.sleep(30)"
STUBBORN = (
    "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('ready', flush=True); "
    "time.sleep(30)"
)


def _child(code: str = SLEEPER) -> tuple[subprocess.Popen, str]:
    """A Python child running `code` with a marker of its own as its last argument, once it said ready."""
    marker = f"tunifolk-test-{uuid.uuid4().hex}"
    proc = subprocess.Popen([sys.executable, "-c", code, marker], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc, marker


@pytest.fixture
def child() -> Iterator[tuple[subprocess.Popen, str]]:
    proc, marker = _child()
    yield proc, marker
    proc.kill()
    proc.wait()


@contextmanager
def http_server(status: int) -> Iterator[str]:
    """A real HTTP server on 127.0.0.1 that answers every GET with `status`; its base URL."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *_args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


# --------------------------------------------------------------------------- ports


def test_a_free_port_can_be_bound_and_a_held_one_is_not_free() -> None:
    port = processes.free_port()
    assert 1024 <= port <= 65535 and processes.port_free(port)
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", port))
        holder.listen(1)
        assert not processes.port_free(port)
    assert processes.port_free(port)


SERVE_200 = """
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer
class H(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()
HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
"""


def test_a_server_that_loses_its_port_before_binding_it_starts_again_on_another() -> None:
    """The race `serve_on_free_port` survives: the first port is taken between the probe and the bind
    (held here), so that server exits on its bind error, and the second start answers."""
    ports: list[int] = []
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen(1)
        taken = holder.getsockname()[1]

        def start(port: int) -> subprocess.Popen:
            ports.append(port)
            bind = taken if len(ports) == 1 else port
            return subprocess.Popen([sys.executable, "-c", SERVE_200, str(bind)], stderr=subprocess.DEVNULL)

        proc, port = processes.serve_on_free_port(start, what="the test server")
    try:
        assert len(ports) == 2 and port == ports[1] and processes.healthy(f"http://127.0.0.1:{port}")
    finally:
        processes.stop(proc)


def test_a_server_that_always_exits_fails_after_its_attempts_in_one_line() -> None:
    starts: list[subprocess.Popen] = []

    def start(_port: int) -> subprocess.Popen:
        starts.append(subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"]))
        return starts[-1]

    with pytest.raises(processes.ProcessError, match=r"^the test server exited with 3$"):
        processes.serve_on_free_port(start, what="the test server", attempts=2)
    assert [p.returncode for p in starts] == [3, 3]


# --------------------------------------------------------------------------- answers


def test_health_is_a_200_an_answer_is_any_status_and_silence_is_none() -> None:
    with http_server(200) as up, http_server(403) as front:
        assert processes.http_status(f"{up}/healthz") == 200
        assert processes.healthy(up) and processes.answers(up)
        assert processes.http_status(f"{front}/healthz") == 403
        assert not processes.healthy(front) and processes.answers(front)
    nobody = f"http://127.0.0.1:{processes.free_port()}"
    assert processes.http_status(f"{nobody}/healthz") is None
    assert not processes.healthy(nobody) and not processes.answers(nobody)


def test_a_loopback_check_never_goes_through_a_proxy() -> None:
    """A proxy in the environment (read when the process starts) cannot reach this machine's servers."""
    dead_proxy = f"http://127.0.0.1:{processes.free_port()}"  # nothing listens: a proxied call fails
    env = {k: v for k, v in os.environ.items() if k.lower() not in ("no_proxy", "http_proxy", "all_proxy")}
    env |= {"http_proxy": dead_proxy, "HTTP_PROXY": dead_proxy}
    with http_server(200) as up:
        check = f"from tunifolk import processes; print(processes.healthy({up!r}))"
        done = subprocess.run(
            [sys.executable, "-c", check], env=env, capture_output=True, text=True, timeout=30, check=True
        )
    assert done.stdout.strip() == "True", done.stderr


# --------------------------------------------------------------------------- waits


def test_wait_healthy_returns_once_the_server_answers() -> None:
    with http_server(200) as up:
        started = time.monotonic()
        processes.wait_healthy(up, timeout=5)
        assert time.monotonic() - started < 1


def test_a_server_that_exits_ends_the_wait_at_once_in_one_line(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    code = "import sys; print('warming up'); print('Address already in use', flush=True); sys.exit(3)"
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=out, stderr=subprocess.STDOUT)
    started = time.monotonic()
    with pytest.raises(processes.ProcessError) as raised:
        processes.wait_until(lambda: False, what="the server", timeout=30, proc=proc, log=log)
    assert time.monotonic() - started < 2, "the wait went on after the server had exited"
    message = str(raised.value)
    assert message == f"the server exited with 3 (Address already in use); see {log}"
    assert isinstance(raised.value, TunifolkError) and "\n" not in message


def test_a_wait_that_times_out_says_what_it_waited_for() -> None:
    nobody = f"http://127.0.0.1:{processes.free_port()}"
    with pytest.raises(processes.ProcessError, match=r"^the emulator did not answer within 0\.3s$"):
        processes.wait_healthy(nobody, timeout=0.3, what="the emulator")


def test_wait_until_returns_what_ready_found() -> None:
    seen = iter([None, "", "http://127.0.0.1:1"])
    assert processes.wait_until(lambda: next(seen), what="x", timeout=5, poll=0.01) == "http://127.0.0.1:1"


# --------------------------------------------------------------------------- pids


def test_a_pid_file_reads_only_while_its_process_runs_what_was_started(
    tmp_path: Path, child: tuple[subprocess.Popen, str]
) -> None:
    proc, marker = child
    pid_file = tmp_path / "run" / "server.pid"
    processes.write_pid(pid_file, proc.pid)
    assert pid_file.read_text() == f"{proc.pid}\n" and [p.name for p in pid_file.parent.iterdir()] == [
        "server.pid"
    ]
    assert processes.read_pid(pid_file) == proc.pid
    assert processes.read_pid(pid_file, "-c", marker) == proc.pid
    assert processes.read_pid(pid_file, "some-other-program") is None  # a recycled pid is not ours
    processes.remove_pid(pid_file)
    processes.remove_pid(pid_file)  # gone already: nothing to do
    assert processes.read_pid(pid_file) is None


def test_garbled_and_stale_pid_files_read_as_nothing_running(tmp_path: Path) -> None:
    garbled = tmp_path / "garbled.pid"
    garbled.write_text("not a pid\n")
    zero = tmp_path / "zero.pid"
    zero.write_text("0\n")  # a kill(0) would signal our own process group
    assert processes.read_pid(garbled) is None and processes.read_pid(zero) is None
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    stale = tmp_path / "stale.pid"
    processes.write_pid(stale, proc.pid)
    assert processes.read_pid(stale) is None
    assert processes.stop_pid_file(stale) is None and not stale.exists()


def test_an_exited_child_not_yet_reaped_counts_as_gone() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    deadline = time.monotonic() + 5
    while Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
        assert time.monotonic() < deadline, "the child never exited"
        time.sleep(0.01)
    assert not processes.alive(proc.pid) and processes.command_line(proc.pid) is None
    assert not processes.runs(proc.pid) and not processes.stop_pid(proc.pid)
    assert proc.wait() == 0


def test_stop_pid_terms_a_child_and_leaves_its_status_to_its_popen(
    child: tuple[subprocess.Popen, str],
) -> None:
    proc, marker = child
    assert processes.stop_pid(proc.pid, marker)
    assert not processes.stop_pid(proc.pid, marker)  # already stopped: nothing to do
    assert proc.wait(timeout=1) == -signal.SIGTERM


def test_stop_pid_kills_what_ignores_sigterm_after_the_grace() -> None:
    proc, marker = _child(STUBBORN)
    try:
        started = time.monotonic()
        assert processes.stop_pid(proc.pid, marker, grace=0.3)
        took = time.monotonic() - started
        assert 0.3 <= took < 1.5, took
        assert proc.wait(timeout=1) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()


def test_stop_pid_never_signals_a_process_that_is_not_ours(child: tuple[subprocess.Popen, str]) -> None:
    proc, _marker = child
    assert not processes.stop_pid(proc.pid, "tunifolk-test-someone-else", grace=0.1)
    time.sleep(0.1)
    assert proc.poll() is None, "a process with other arguments was signalled"


def test_stop_pid_file_stops_the_recorded_process_and_removes_the_file(
    tmp_path: Path, child: tuple[subprocess.Popen, str]
) -> None:
    proc, marker = child
    pid_file = tmp_path / "server.pid"
    processes.write_pid(pid_file, proc.pid)
    assert processes.stop_pid_file(pid_file, marker) == proc.pid
    assert not pid_file.exists() and not processes.runs(proc.pid, marker)


def test_stop_reaps_a_held_child(child: tuple[subprocess.Popen, str]) -> None:
    proc, _marker = child
    processes.stop(proc)
    assert proc.returncode == -signal.SIGTERM and not Path(f"/proc/{proc.pid}").exists()
    processes.stop(proc)  # stopped already: nothing to do


def test_a_detached_server_has_its_own_session_its_log_and_its_pid_file(tmp_path: Path) -> None:
    marker = f"tunifolk-test-{uuid.uuid4().hex}"
    code = "import os, sys, time; print(os.environ['GREETING'], flush=True); time.sleep(30)"
    log, pid_file = tmp_path / "logs" / "server.log", tmp_path / "run" / "server.pid"
    log.parent.mkdir()
    log.write_text("earlier run\n")
    proc = processes.start_detached(
        [sys.executable, "-c", code, marker],
        log=log,
        pid_file=pid_file,
        cwd=tmp_path,
        env={"GREETING": "hello"},
    )
    try:
        assert processes.read_pid(pid_file, marker) == proc.pid  # at once: the exec is complete
        assert os.getsid(proc.pid) == proc.pid != os.getsid(0), "not in a session of its own"
        processes.wait_until(lambda: "hello" in log.read_text(), what="the greeting", timeout=5, proc=proc)
        assert log.read_text() == "earlier run\nhello\n"  # appended to
    finally:
        assert processes.stop_pid_file(pid_file, marker) == proc.pid
    assert proc.poll() == -signal.SIGTERM


def test_descendants_finds_the_tree_and_skip_prunes_a_branch() -> None:
    code = (
        "import subprocess, sys, time; "
        "kids = [subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)', name]) "
        "for name in ('keep-me', 'leave-me')]; "
        "print(' '.join(str(k.pid) for k in kids), flush=True); time.sleep(30)"
    )
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        keep, leave = (int(pid) for pid in parent.stdout.readline().split())
        assert sorted(processes.descendants(parent.pid)) == sorted([keep, leave])
        assert processes.descendants(parent.pid, skip=lambda pid: processes.runs(pid, "leave-me")) == [keep]
        assert processes.descendants(keep) == []
    finally:
        for pid in processes.descendants(parent.pid):
            os.kill(pid, signal.SIGKILL)
        parent.kill()
        parent.wait()
