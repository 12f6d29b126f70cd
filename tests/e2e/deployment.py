"""The bot split over PostgreSQL as real processes: one `--role ingest`, two `--role worker` (each
on its own data folder), against the fake Bot API and the local video site."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from testkit.bot_process import BotProcess, bot_environment
from testkit.telegram import Chat, FakeBotApi, User
from testkit.video_site import VideoServer
from tests.e2e.conftest import WAIT_SECONDS, new_user, until_logged

LEASE_SECONDS = 4
"""Short, so a worker cut off from the database loses its jobs within the test; renewed every
third of it, so a live worker keeps its jobs through a busy second."""


@dataclass
class Deployment:
    api: FakeBotApi
    site: VideoServer
    dsn: str
    ingest: BotProcess
    workers: list[BotProcess]
    folder: Path
    env: dict[str, str]
    """Settings every process of the deployment gets."""

    @property
    def processes(self) -> list[BotProcess]:
        return [self.ingest, *self.workers]

    def process(self, role: str, name: str, dsn: str | None = None, **env: str) -> BotProcess:
        """Another bot process of this deployment (not started)."""
        settings = {"VIDRELAY_LEASE_SECONDS": str(LEASE_SECONDS), **self.env, **env}
        environment = bot_environment(
            self.api,
            self.folder / name,
            VIDRELAY_STORE="postgres",
            VIDRELAY_DATABASE_URL=dsn or self.dsn,
            **settings,
        )
        return BotProcess(environment, self.folder / f"{name}.log", role=role)

    def post(self, path: str) -> tuple[User, int]:
        """A new user posts the site's `path` in a private chat; (the user, the message id)."""
        user = new_user()
        return user, self.api.send_text(Chat.private(user), user, self.site.url(path))

    async def delivered(self, posted: Iterable[tuple[User, int]], timeout: float = WAIT_SECONDS) -> None:
        """Until every posted link has its video as a reply (or the deadline)."""
        for user, message in posted:
            await self.api.wait_for(
                lambda u=user, m=message: next((v for v in self.api.videos(u.id) if v.reply_to == m), None),
                timeout=timeout,
            )

    def tracebacks(self) -> list[str]:
        return [bot.log_path.name for bot in self.processes if "Traceback" in bot.log()]


@asynccontextmanager
async def deployment(
    dsn: str, folder: Path, site: VideoServer, api: FakeBotApi, ingest_dsn: str | None = None, **env: str
) -> AsyncIterator[Deployment]:
    """Started: the ingest polls, the workers run. `ingest_dsn`: the ingest's own way to the
    database (through a proxy, say)."""
    made = Deployment(api, site, dsn, BotProcess({}, folder / "unused.log"), [], folder, env)
    made.ingest = made.process("ingest", "ingest", ingest_dsn)
    made.workers = [made.process("worker", f"worker-{n}") for n in range(2)]
    try:
        await made.ingest.start(api)
        for worker in made.workers:
            await worker.spawn()
        for worker in made.workers:
            await until_logged(worker, "job(s) gave up at this boot")  # its workers claim now
        yield made
    finally:
        for bot in made.processes:
            await bot.close()
        print_logs(folder)


def print_logs(folder: Path) -> None:
    """Shown by pytest only when a test failed: what each process said."""
    for log in sorted(folder.glob("*.log")):
        print(f"==== {log.name}\n{log.read_text(errors='replace')[-6000:]}")


async def downloads_in_flight(site: VideoServer, paths: Iterable[str], timeout: float = WAIT_SECONDS) -> None:
    """Until every path's body download has begun (its scrape looked first) and none has ended."""

    def downloading(path: str) -> bool:
        records = [r for r in site.requests if r.path == path]
        return len(records) >= 2 and records[-1].finished is None

    deadline = time.monotonic() + timeout
    while not all(downloading(p) for p in paths):
        assert time.monotonic() < deadline, "the downloads never were all in flight at once"
        await asyncio.sleep(0.05)
