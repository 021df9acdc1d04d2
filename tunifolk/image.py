"""The scorer's container image built and run with podman here, from Debian's packages (docs/image.md).

``scorer/Dockerfile`` is the one recipe: users build it with Docker from ``python:3.11-slim``. This
module builds the same file on a machine that reaches no image registry, only Debian's packages and
PyPI: its base is made by ``mmdebstrap`` from Debian 12 (Python 3.11, the Python the locks are
resolved for) and imported into podman. It is also the one place for this kind of machine's quirks,
for every command that builds or runs a container (``make image``, the tests, ``make bench``):

* ``--runtime runc``: crun refuses the hybrid cgroup layout;
* ``--ulimit nofile=…,nproc=…`` lowered (ULIMITS): podman's defaults raise them, which is not
  permitted here;
* builds run with ``--network host`` and the host's CA bundle (with a pip.conf naming it) mounted, so
  that pip reaches PyPI through the host's TLS setup; neither ends up in the image.

``python -m tunifolk.image build`` prints the image's reference by digest.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tunifolk.paths import BUILD, ROOT

DOCKERFILE = ROOT / "scorer" / "Dockerfile"
REPOSITORY = "localhost/tunifolk-scorer"
"""Where the built image is tagged in podman's local storage (the tag is its context's digest)."""
WORK = BUILD / "image"
SUITE = "bookworm"
"""Debian 12: its python3 is 3.11, the version ``make lock`` resolves for."""
MIRROR = "http://deb.debian.org/debian"
BASES: dict[str, tuple[str, ...]] = {
    "BASE_IMAGE": ("python3", "python3-venv", "passwd"),
}
"""The Dockerfile's base ARG and the Debian packages its base is made of (on top of Debian's
essential set): Python, its venv module, and ``useradd`` for the served user."""
MMDEBSTRAP_OPTIONS = (
    "--variant=essential",
    "--hook-dir=/usr/share/mmdebstrap/hooks/merged-usr",
    *(f"--dpkgopt=path-exclude=/usr/share/{d}/*" for d in ("doc", "man", "locale", "info")),
    "--dpkgopt=path-include=/usr/share/doc/*/copyright",
)
"""Essential packages only (no apt: nothing is installed in a running container), /usr merged
without perl's usrmerge, no documentation or translations (the served image's size)."""
CA_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")
IMAGE_BY_DIGEST = re.compile(r"^[^\s@]+@sha256:[0-9a-f]{64}$")
"""An image reference by digest (`NAME@sha256:<64 hex>`): what cannot move under a build or a deploy."""
CONTEXT_EXCLUDE = ("*.so", "*.pyc")
"""What of ``scorer/`` stays out of the build context: bytecode (the image compiles its own) and a
stray extension module, which would shadow its source."""
TOOLS = {"podman": "podman", "runc": "runc", "mmdebstrap": "mmdebstrap"}
"""Command → Debian package, for the tools this module needs (``make image-tools`` installs them)."""


class ImageError(RuntimeError):
    """A build or run that cannot go on; the message names the fix."""


def missing_tools() -> list[str]:
    """The Debian packages whose commands are not on PATH."""
    return [pkg for cmd, pkg in TOOLS.items() if shutil.which(cmd) is None]


def unavailable() -> str | None:
    """Why containers cannot be built and run here, in one line, or None when they can."""
    if missing := missing_tools():
        return f"{', '.join(missing)} not installed (make image-tools, as root, installs them)"
    if os.geteuid() != 0:
        return "podman runs rootful here: run as root"
    done = subprocess.run([*podman(), "info", "--format", "{{.Store.GraphDriverName}}"], capture_output=True)
    if done.returncode != 0:
        return f"podman info failed: {done.stderr.decode(errors='replace').strip().splitlines()[-1:]}"
    return None


def podman() -> list[str]:
    """podman with the runtime this machine needs."""
    return ["podman", "--runtime", "runc"]


ULIMITS = {"nofile": (resource.RLIMIT_NOFILE, 8192), "nproc": (resource.RLIMIT_NPROC, 4096)}
"""Each limit a container gets: this process's hard limit, at most the cap. podman's defaults are
higher than this machine permits, and so may be the hard limit this process reports (runc was refused
nproc at the 96363 seen here; its own parent had 32768): a scorer needs a few processes and a few
hundred open files, so the caps are far below any such limit and far above the scorer's needs."""


def ulimits() -> list[str]:
    """``--ulimit`` options for every container (see ULIMITS)."""
    out = []
    for name, (which, cap) in ULIMITS.items():
        _soft, hard = resource.getrlimit(which)
        value = cap if hard == resource.RLIM_INFINITY else min(hard, cap)
        out += ["--ulimit", f"{name}={value}:{value}"]
    return out


def _run(command: list[str], *, quiet: bool = True) -> str:
    done = subprocess.run(command, capture_output=quiet, text=True)
    if done.returncode != 0:
        tail = (done.stderr or "").strip().splitlines()[-5:] if quiet else []
        raise ImageError(f"{' '.join(command[:4])} … failed (exit {done.returncode}): " + " | ".join(tail))
    return (done.stdout or "").strip()


def exists(ref: str) -> bool:
    """Whether podman's local storage has ``ref`` (a tag, an ID, or repository@digest)."""
    return subprocess.run([*podman(), "image", "exists", ref], capture_output=True).returncode == 0


def base_tag(arg: str) -> str:
    """The local tag of a Debian base: its recipe's hash, so a changed recipe makes a new base."""
    recipe = json.dumps([SUITE, MIRROR, BASES[arg], MMDEBSTRAP_OPTIONS]).encode()
    return f"localhost/tunifolk-base-serve:{SUITE}-{hashlib.sha256(recipe).hexdigest()[:12]}"


def debian_base(arg: str) -> str:
    """The base for ``arg``, made with mmdebstrap and imported into podman when not there yet."""
    tag = base_tag(arg)
    if exists(tag):
        return tag
    WORK.mkdir(parents=True, exist_ok=True)
    tarball = WORK / f"{tag.rsplit('/', 1)[1].replace(':', '-')}.tar"
    try:
        _run(
            [
                "mmdebstrap",
                *MMDEBSTRAP_OPTIONS,
                f"--include={','.join(BASES[arg])}",
                SUITE,
                str(tarball),
                MIRROR,
            ]
        )
        _run([*podman(), "import", "--change", 'CMD ["python3"]', str(tarball), tag])
    finally:
        tarball.unlink(missing_ok=True)
    return tag


def context_files(root: Path = ROOT) -> list[Path]:
    """The files of the build context (paths relative to ``root``, a git checkout): exactly the files
    git tracks under ``scorer/`` (`git ls-files`), less CONTEXT_EXCLUDE. An untracked file there (an
    `.env`, a credentials JSON, an editor's backup) never reaches the image, and a tracked symlink
    that leaves ``scorer/`` stops the build on one line. The Dockerfile copies nothing else."""
    try:
        listed = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z", "--", "scorer"],
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        raise ImageError(
            f"the scorer's build context is the files git tracks under {root / 'scorer'}, and git could "
            f"not list them ({exc}): build from a git checkout"
        ) from None
    inside = (root / "scorer").resolve()
    files = []
    for name in sorted(filter(None, listed.decode().split("\0"))):
        rel, path = Path(name), root / name
        if any(rel.match(p) for p in CONTEXT_EXCLUDE) or not (path.is_file() or path.is_symlink()):
            continue  # excluded, or deleted in the work tree
        if path.is_symlink() and not path.resolve().is_relative_to(inside):
            raise ImageError(
                f"{rel} is a symlink out of scorer/ (to {os.readlink(path)}): the build context stays inside"
            )
        files.append(rel)
    return files


def context_digest(root: Path = ROOT) -> str:
    """sha256 over the context's paths, modes and contents: what decides whether the image changes."""
    h = hashlib.sha256()
    for rel in context_files(root):
        path = root / rel
        h.update(f"{rel.as_posix()}\0{path.stat().st_mode & 0o111:o}\0".encode())
        h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


def stage_context(dest: Path) -> Path:
    """Copy the build context into ``dest`` (emptied first)."""
    shutil.rmtree(dest, ignore_errors=True)
    for rel in context_files():
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, dest / rel)
    return dest


@dataclass(frozen=True, slots=True)
class Image:
    """A built scorer image in podman's local storage."""

    id: str
    digest: str
    size: int
    """Bytes, as podman counts them (every layer, uncompressed)."""

    @property
    def ref(self) -> str:
        """The image by digest, the way Cloud Run is given it."""
        return f"{REPOSITORY}@{self.digest}"


def inspect(ref: str) -> Image:
    """The local image ``ref``."""
    out = _run([*podman(), "image", "inspect", "--format", "{{.Id}} {{.Digest}} {{.Size}}", ref])
    ident, digest, size = out.split()
    return Image(id=ident, digest=digest, size=int(size))


def build(*, from_registry: bool = False, no_cache: bool = False, quiet: bool = True) -> Image:
    """Build the scorer image from this checkout and tag it with its context's digest (an unchanged
    context reuses podman's layer cache). ``from_registry`` keeps the Dockerfile's default bases
    (python:3.11 and python:3.11-slim, pulled); otherwise they are made from Debian's packages.
    ``no_cache`` builds every step again (the bases are kept)."""
    if why := unavailable():
        raise ImageError(f"cannot build the scorer image: {why}")
    tag = f"{REPOSITORY}:{context_digest()[:16]}"
    with _build_lock():
        context = stage_context(WORK / "context")
        _build(context, DOCKERFILE, [tag], from_registry=from_registry, no_cache=no_cache, quiet=quiet)
    return inspect(tag)


def build_dir(context: Path, dockerfile: Path, tags: list[str], *, quiet: bool = True) -> Image:
    """Build ``dockerfile`` over an unpacked ``context`` (the Cloud Build stand-in's source archive)
    with the Debian bases, tagged ``tags``: the same command as ``build``."""
    if why := unavailable():
        raise ImageError(f"cannot build the scorer image: {why}")
    with _build_lock():
        _build(context, dockerfile, tags, from_registry=False, no_cache=False, quiet=quiet)
    return inspect(tags[0])


def _build_lock() -> Any:
    """One build at a time (parallel test workers, the stand-in's builds)."""
    WORK.mkdir(parents=True, exist_ok=True)
    lock = (WORK / "build.lock").open("w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    return lock  # closing it (the with block) releases the lock


def _build(
    context: Path, dockerfile: Path, tags: list[str], *, from_registry: bool, no_cache: bool, quiet: bool
) -> None:
    bases = [] if from_registry else [f"--build-arg={arg}={debian_base(arg)}" for arg in BASES]
    mounts = []
    if CA_BUNDLE.exists():
        pip_conf = WORK / "pip.conf"
        pip_conf.write_text(f"[global]\ncert = {CA_BUNDLE}\n")
        mounts = ["--volume", f"{CA_BUNDLE}:{CA_BUNDLE}:ro", "--volume", f"{pip_conf}:/etc/pip.conf:ro"]
    command = [*podman(), "build", *ulimits(), "--network", "host", *mounts, *bases, "--layers"]
    command += ["--no-cache"] if no_cache else []
    command += [arg for tag in tags for arg in ("--tag", tag)]
    _run([*command, "--file", str(dockerfile), str(context)], quiet=quiet)


@dataclass(frozen=True, slots=True)
class Container:
    """A running scorer container, published on 127.0.0.1:``port``."""

    id: str
    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def logs(self) -> str:
        done = subprocess.run([*podman(), "logs", self.id], capture_output=True, text=True)
        return done.stdout + done.stderr

    def stop(self) -> None:
        """Stop and remove the container (SIGTERM, then SIGKILL after 5 s)."""
        subprocess.run([*podman(), "rm", "--force", "--time", "5", self.id], capture_output=True)


CONTAINER_PORT = 8080
"""$PORT inside the container (Cloud Run's default)."""


def run_options(port: int, env: dict[str, str] | None = None) -> list[str]:
    """``podman run`` options that run the image the way Cloud Run runs it: its entrypoint and user,
    ``$PORT`` set, a read-only root filesystem with in-memory /tmp and /dev/shm (Cloud Run's are in
    memory too; multiprocessing's semaphores need /dev/shm), published on 127.0.0.1:``port`` only."""
    env = {"PORT": str(CONTAINER_PORT), **(env or {})}
    options = [*ulimits(), "--read-only", "--read-only-tmpfs=false", "--tmpfs", "/tmp", "--shm-size", "64m"]
    options += ["--publish", f"127.0.0.1:{port}:{env['PORT']}"]
    return options + [f"--env={k}={v}" for k, v in env.items()]


def run(ref: str, port: int, env: dict[str, str] | None = None) -> Container:
    """Start ``ref`` in the background (see run_options)."""
    return Container(id=_run([*podman(), "run", "--detach", *run_options(port, env), ref]), port=port)


REGISTRY_SUFFIX = "-docker.pkg.dev"
"""Artifact Registry's docker hosts (`REGION-docker.pkg.dev`): the Cloud Build stand-in's images keep
such names in podman's local storage (tunifolk/standin/cloudbuild.py)."""


def local(ref: str) -> bool:
    """Whether ``ref`` names an image by digest that podman's local storage should hold: what ``make
    image`` prints (``localhost/…``), or what the Cloud Build stand-in built (``…-docker.pkg.dev/…``)."""
    host = ref.split("/", 1)[0]
    return "@sha256:" in ref and (host == "localhost" or host.endswith(REGISTRY_SUFFIX))


def main(argv: list[str] | None = None) -> int:
    """``build``: build the image, print its reference by digest (stdout) and the figures (stderr).
    ``missing``: print the Debian packages to install (none: nothing), for ``make image-tools``."""
    parser = argparse.ArgumentParser(prog="python -m tunifolk.image", description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["build", "missing"])
    parser.add_argument("--from-registry", action="store_true", help="use the Dockerfile's default bases")
    parser.add_argument("--verbose", action="store_true", help="show podman's build output")
    args = parser.parse_args(argv)
    if args.command == "missing":
        print(" ".join(missing_tools()))
        return 0
    start = time.monotonic()
    try:
        image = build(from_registry=args.from_registry, quiet=not args.verbose)
    except ImageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"built in {time.monotonic() - start:.0f} s, {image.size / 1e6:.0f} MB", file=sys.stderr)
    print(image.ref)
    return 0


if __name__ == "__main__":
    sys.exit(main())
