"""A container of the image under test, run the way compose.yaml runs it (`init: true`, the data
folder at /data), on the host's network so that it reaches the fakes on 127.0.0.1.

The engine's commands block; in an async test they run in a thread, so that the fake Bot API in
the test's event loop keeps answering the containerized bot meanwhile.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import subprocess
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.support.container_engine import Engine

IMAGE_UID = 10001
"""The Dockerfile's `USER`: a bind-mounted data folder is chowned to it on the host."""
RUN_TIMEOUT_SECONDS = 300.0
SIGKILLED = 128 + 9


def data_folder_for_the_image(path: Path) -> Path:
    """A folder the image's user may write, as an operator prepares a bind mount (`chown 10001`)."""
    path.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        os.chown(path, IMAGE_UID, IMAGE_UID)
    else:  # an engine run by a user: a folder that user can hand to uid 10001 only by its mode
        path.chmod(0o777)
    return path


def env_options(env: Mapping[str, str]) -> list[str]:
    return [option for name, value in env.items() for option in ("--env", f"{name}={value}")]


async def run_once(
    engine: Engine,
    image: str,
    *args: str,
    env: Mapping[str, str] | None = None,
    data: Path | None = None,
    entrypoint: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """`ENGINE run --rm IMAGE ARGS` to its end (no health check: it would only add noise)."""
    options = ["--rm", "--init", "--no-healthcheck", *env_options(env or {})]
    if data is not None:
        options += ["--volume", f"{data}:/data"]
    if entrypoint is not None:
        options += ["--entrypoint", entrypoint]
    return await asyncio.to_thread(
        engine, "run", *engine.run_options, *options, image, *args, timeout=RUN_TIMEOUT_SECONDS, check=False
    )


@dataclass(frozen=True)
class Container:
    engine: Engine
    name: str

    async def __call__(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return await asyncio.to_thread(self.engine, *args, timeout=timeout, check=False)

    async def health_check(self) -> subprocess.CompletedProcess[str]:
        """The image's HEALTHCHECK, run by the engine (podman) or as Docker runs it (its `Test`)."""
        if self.engine.name == "podman":
            return await self("healthcheck", "run", self.name)
        inspected = await self("inspect", "--format", "{{json .Config.Healthcheck.Test}}", self.name)
        kind, *command = json.loads(inspected.stdout)
        assert kind == "CMD", inspected.stdout
        return await self("exec", self.name, *command)

    async def stop(self, grace_seconds: float) -> int:
        """What `ENGINE stop --time GRACE` does, with the container left running for the engine
        meanwhile (podman refuses health checks in its "stopping" state): the image's STOPSIGNAL,
        SIGKILL if the container has not exited after `grace_seconds`. The exit code (137 for the
        SIGKILL)."""
        inspected = await self("inspect", "--format", "{{.Config.StopSignal}}", self.name)
        await self("kill", "--signal", inspected.stdout.strip() or "SIGTERM", self.name)
        try:
            waited = await asyncio.to_thread(
                self.engine, "wait", self.name, timeout=grace_seconds, check=False
            )
        except subprocess.TimeoutExpired:
            await self("kill", "--signal", "SIGKILL", self.name)
            return SIGKILLED
        return int(waited.stdout.strip())

    async def running(self) -> bool:
        inspected = await self("inspect", "--format", "{{.State.Running}}", self.name)
        return inspected.stdout.strip() == "true"

    async def logs(self) -> str:
        ran = await self("logs", self.name)
        return ran.stdout + ran.stderr

    async def changes(self) -> list[str]:
        """What the container changed in its own filesystem, outside its volumes (`ENGINE diff`)."""
        return (await self("diff", self.name)).stdout.splitlines()


@asynccontextmanager
async def detached(
    engine: Engine, image: str, *args: str, env: Mapping[str, str], data: Path, extra: Sequence[str] = ()
) -> AsyncIterator[Container]:
    """`ENGINE run --detach IMAGE ARGS`, removed (killed if still running) at the end."""
    name = f"vidrelay-test-{secrets.token_hex(4)}"
    argv = ["--detach", "--init", "--name", name, "--volume", f"{data}:/data", *env_options(env), *extra]
    started = await asyncio.to_thread(engine, "run", *engine.run_options, *argv, image, *args, check=False)
    container = Container(engine, name)
    try:
        assert started.returncode == 0, started.stderr
        yield container
    finally:
        await container("rm", "--force", name)
