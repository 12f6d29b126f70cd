"""A container engine for the image tests: Docker where its daemon answers, else podman with runc.

Podman needs no daemon. The base image the Dockerfile names is pulled where a registry answers;
where none can be reached, Debian 12's own packages stand in for it (`debootstrap` from the
mirror apt already uses), with `/usr/local/bin/python` linked to Debian's python3 where the
official image builds CPython into /usr/local: enough to prove the Dockerfile builds and the
image runs, not a byte-identical base. The steps are those of the machine's shared
container-engine.sh, kept here so that a fresh CI machine (`.ci/run` installs podman, runc,
catatonit and debootstrap) needs nothing outside the repository. Nothing here starts a daemon.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.deploy_files import dockerfile


def _qualified(name: str) -> str:
    """A short image name as Docker reads it: `python:3.11` is docker.io/library/python:3.11."""
    first, _, rest = name.partition("/")
    if not rest:
        return f"docker.io/library/{name}"
    return name if "." in first or ":" in first or first == "localhost" else f"docker.io/{name}"


BASE_IMAGE = _qualified(next(i.args.split()[0] for i in dockerfile() if i.keyword == "FROM"))
PODMAN_PACKAGES = ("podman", "runc", "debootstrap")
CATATONIT = Path("/usr/libexec/podman/catatonit")
"""Podman's `--init` (compose's `init: true`), only a recommendation of Debian's podman package."""
STAND_IN_PACKAGES = "python3,python3-venv,python3-pip,ca-certificates"
DEFAULT_MIRROR = "http://deb.debian.org/debian"
# pip's configuration and local mirrors on the machine, mounted into the build (podman only):
# the build's `pip install` then finds what the host's pip finds.
PIP_MOUNTS = ("/opt/pypi", "/opt/pypi-more", "/opt/wheels", "/etc/xdg/pip", "/etc/pip.conf", "/etc/ssl/certs")
SETUP_LOCK = Path(tempfile.gettempdir()) / "vidrelay-container-engine.lock"
INSTALL_TIMEOUT_SECONDS = 900
ANSWER_TIMEOUT_SECONDS = 30
PULL_TIMEOUT_SECONDS = 300


class EngineUnavailable(Exception):
    """Neither engine can run here (the message says why, for each)."""


class BuildFailed(Exception):
    """The image did not build (the message ends with the build's last lines)."""


@dataclass(frozen=True)
class Engine:
    name: str
    build_options: tuple[str, ...] = ()
    run_options: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)

    def __call__(
        self, *args: str, timeout: float = 120, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        """`ENGINE ARGS` to its end."""
        return subprocess.run(
            [self.name, *args],
            env={**os.environ, **self.env},
            capture_output=True,
            text=True,
            timeout=timeout,
            check=check,
        )

    def build(self, context: Path, tag: str, *, timeout: float) -> None:
        """Build `context` as `tag`. The layer cache makes unchanged steps free; the image the tag
        named before is removed once replaced, so repeated runs do not pile up images."""
        before = self._image_id(tag)
        built = self("build", *self.build_options, "--tag", tag, str(context), timeout=timeout, check=False)
        if built.returncode != 0:
            tail = "\n".join((built.stdout + built.stderr).strip().splitlines()[-30:])
            raise BuildFailed(f"`{self.name} build` exited {built.returncode}:\n{tail}")
        if before is not None and before != self._image_id(tag):
            self("rmi", before, check=False)

    def _image_id(self, tag: str) -> str | None:
        inspected = self("image", "inspect", "--format", "{{.Id}}", tag, check=False)
        return inspected.stdout.strip() or None if inspected.returncode == 0 else None


def find_engine() -> Engine:
    docker_problem = _docker_problem()
    if docker_problem is None:
        return Engine("docker", run_options=("--network", "host"))
    with _setup_lock():
        podman_problem = _podman_problem()
    if podman_problem is None:
        return _podman()
    raise EngineUnavailable(f"docker: {docker_problem}; podman: {podman_problem}")


def _docker_problem() -> str | None:
    if shutil.which("docker") is None:
        return "no docker CLI on PATH"
    return _answers(["docker", "info"])


def _podman_problem() -> str | None:
    missing = [tool for tool in PODMAN_PACKAGES if shutil.which(tool) is None]
    if not (CATATONIT.exists() or shutil.which("catatonit")):
        missing.append("catatonit")
    if missing and (problem := _install(missing)) is not None:
        return problem
    podman = _podman()
    if not _has_base(podman) and (problem := _bootstrap_base(podman)) is not None:
        return problem
    return _answers(["podman", "info"], env=podman.env)


def _podman() -> Engine:
    pip_mounts = [("-v", f"{path}:{path}:ro") for path in PIP_MOUNTS if Path(path).exists()]
    return Engine(
        "podman",
        # The docker format keeps HEALTHCHECK, which the OCI image format has no field for.
        build_options=(
            *("--isolation", "chroot", "--pull=never", "--network", "host", "--format", "docker"),
            *(option for mount in pip_mounts for option in mount),
        ),
        run_options=("--runtime", "runc", "--network", "host"),
        env={"CONTAINERS_CONF": str(_containers_conf())},
    )


def _containers_conf() -> Path:
    # Podman's default ulimits ask for more open files than a VM's hard limit may allow.
    path = Path(tempfile.gettempdir()) / "vidrelay-containers.conf"
    if not path.exists():
        path.write_text("[containers]\ndefault_ulimits = []\n")
    return path


def _install(packages: Sequence[str]) -> str | None:
    names = ", ".join(packages)
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        return f"{names} not on PATH, and not root with apt-get to install them"
    install = ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *packages]
    ran = _apt(install)
    if ran.returncode != 0:  # a fresh machine's package lists may be missing or stale
        _apt(["apt-get", "update", "-qq"])
        ran = _apt(install)
    return None if ran.returncode == 0 else f"apt-get could not install {names}: {_last_line(ran)}"


def _apt(argv: list[str]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    return subprocess.run(
        argv, env=env, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_SECONDS, check=False
    )


def _has_base(podman: Engine) -> bool:
    """The base image is there, or a registry gave it (the real one, where a registry answers)."""
    if podman("image", "exists", BASE_IMAGE, check=False).returncode == 0:
        return True
    try:
        return (
            podman("pull", "--quiet", BASE_IMAGE, timeout=PULL_TIMEOUT_SECONDS, check=False).returncode == 0
        )
    except subprocess.TimeoutExpired:
        return False


def _bootstrap_base(podman: Engine) -> str | None:
    """The stand-in for BASE_IMAGE: Debian 12 minbase with its python3, imported into podman."""
    with tempfile.TemporaryDirectory(prefix="vidrelay-base-") as tmp:
        root = Path(tmp) / "root"
        argv = ["debootstrap", "--variant=minbase", f"--include={STAND_IN_PACKAGES}", "bookworm"]
        ran = subprocess.run(
            [*argv, str(root), _apt_mirror()],
            capture_output=True,
            text=True,
            timeout=INSTALL_TIMEOUT_SECONDS,
            check=False,
        )
        if ran.returncode != 0:
            return f"debootstrap of the stand-in base failed: {_last_line(ran)}"
        for name in ("python", "python3"):
            (root / "usr/local/bin" / name).symlink_to("/usr/bin/python3")
        sources = Path("/etc/apt/sources.list.d/debian.sources")
        if sources.exists():  # the sources this machine's apt reaches, as the official image has them
            shutil.copy(sources, root / "etc/apt/sources.list.d/debian.sources")
            (root / "etc/apt/sources.list").unlink(missing_ok=True)
        for package in (root / "var/cache/apt/archives").glob("*.deb"):
            package.unlink()
        tar = subprocess.Popen(["tar", "-C", str(root), "-c", "."], stdout=subprocess.PIPE)
        imported = subprocess.run(
            [podman.name, "import", "--change", 'CMD ["python3"]', "-", BASE_IMAGE],
            env={**os.environ, **podman.env},
            stdin=tar.stdout,
            capture_output=True,
            text=True,
            timeout=INSTALL_TIMEOUT_SECONDS,
            check=False,
        )
        tar.wait(timeout=ANSWER_TIMEOUT_SECONDS)
        if imported.returncode != 0:
            return f"podman import of the stand-in base failed: {_last_line(imported)}"
    return None


def _apt_mirror() -> str:
    """The Debian mirror this machine's apt already uses."""
    for path, key in (("/etc/apt/sources.list.d/debian.sources", "URIs:"), ("/etc/apt/sources.list", "deb")):
        try:
            lines = Path(path).read_text().splitlines()
        except OSError:
            continue
        for line in lines:
            words = line.split()
            if len(words) > 1 and words[0] == key and words[1].startswith("http"):
                return words[1]
    return DEFAULT_MIRROR


def _answers(argv: list[str], env: dict[str, str] | None = None) -> str | None:
    try:
        ran = subprocess.run(
            argv,
            env={**os.environ, **(env or {})},
            capture_output=True,
            text=True,
            timeout=ANSWER_TIMEOUT_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"`{' '.join(argv)}` did not answer within {ANSWER_TIMEOUT_SECONDS} s"
    return None if ran.returncode == 0 else f"`{' '.join(argv)}` failed: {_last_line(ran)}"


def _last_line(ran: subprocess.CompletedProcess[str]) -> str:
    lines = (ran.stderr or ran.stdout or "").strip().splitlines()
    return lines[-1] if lines else f"exit {ran.returncode}"


@contextmanager
def _setup_lock() -> Iterator[None]:
    # Two test runs on one machine would install or bootstrap the same things at once.
    with SETUP_LOCK.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield
