"""`docker build` of the Dockerfile and a look inside the image, where a container engine answers.

Without one (`docker info` fails: no CLI, no daemon, no permission) the test skips and says why;
it never starts a daemon of its own.
"""

from __future__ import annotations

import json
import secrets
import shutil
import subprocess
from collections.abc import Iterator

import pytest

from tests.support.deploy_files import ROOT

pytestmark = pytest.mark.slow

BUILD_TIMEOUT_SECONDS = 1800


def engine_problem() -> str | None:
    if shutil.which("docker") is None:
        return "no docker CLI on PATH"
    try:
        info = subprocess.run(["docker", "info"], capture_output=True, text=True, timeout=30, check=False)
    except subprocess.TimeoutExpired:
        return "`docker info` did not answer within 30 s"
    if info.returncode != 0:
        lines = (info.stderr or info.stdout).strip().splitlines()
        return f"`docker info` failed: {lines[-1] if lines else f'exit {info.returncode}'}"
    return None


def docker(*args: str, timeout: float = 120) -> str:
    return subprocess.run(
        ["docker", *args], capture_output=True, text=True, timeout=timeout, check=True
    ).stdout


@pytest.fixture(scope="module")
def image() -> Iterator[str]:
    problem = engine_problem()
    if problem is not None:
        pytest.skip(f"no container engine answers here ({problem}); the Dockerfile is checked by parsing")
    tag = f"vidrelay-test:{secrets.token_hex(4)}"
    docker("build", "--tag", tag, str(ROOT), timeout=BUILD_TIMEOUT_SECONDS)
    yield tag
    subprocess.run(["docker", "image", "rm", "--force", tag], capture_output=True, timeout=120, check=False)


def test_the_image_declares_its_user_volume_signal_and_healthcheck(image: str) -> None:
    (inspected,) = json.loads(docker("image", "inspect", image))
    config = inspected["Config"]
    assert config["User"].split(":")[0] not in {"", "0", "root"}
    assert "/data" in config["Volumes"]
    assert config["StopSignal"] == "SIGTERM"
    assert config["Healthcheck"]["Test"][0] == "CMD"
    assert config["Entrypoint"] == ["vidrelay"]
    assert config["Cmd"] == ["run"]


def test_the_image_holds_ffmpeg_deno_and_the_bot_configured_for_the_volume(image: str) -> None:
    script = "id -u && ffmpeg -version && ffprobe -version && deno --version && vidrelay config"
    out = docker("run", "--rm", "--entrypoint", "/bin/sh", image, "-c", script)
    uid, *rest = out.splitlines()
    assert uid != "0"
    assert any(line.startswith("ffmpeg version") for line in rest)
    assert any(line.startswith("deno ") for line in rest)
    assert "VIDRELAY_DATA_DIR=/data" in rest


def test_the_healthcheck_fails_while_no_bot_answers(image: str) -> None:
    result = subprocess.run(
        ["docker", "run", "--rm", "--entrypoint", "python", image, "/usr/local/lib/vidrelay/healthcheck.py"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 1
    assert "unhealthy" in result.stderr
