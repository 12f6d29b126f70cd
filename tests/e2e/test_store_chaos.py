"""The PostgreSQL deployment (one ingest, two workers, real processes) while its database goes
away: a restart, a storm of killed backends, the ingest's lock connection gone silent. Every link
is delivered exactly once, no process exits, no traceback is logged, and Telegram never sees two
pollers at once.

The database server is the module's own, since restarting it would cut every other test's."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import pytest

from testkit.postgres import FAST, PostgresServer, throwaway_postgres
from testkit.tcp_proxy import TcpProxy
from testkit.telegram import FakeBotApi, User
from testkit.video_site import Trickle, VideoServer
from testkit.video_site.behaviours import Body
from tests.e2e.conftest import CLIPS_DIR, WAIT_SECONDS, until_logged
from tests.e2e.deployment import Deployment, deployment, downloads_in_flight
from tests.support.postgres import database_on

pytestmark = pytest.mark.slow

STORM_SECONDS, STORM_EVERY_SECONDS = 20.0, 2.0
_KILL_OURS = """
    SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
    WHERE datname = current_database() AND pid <> pg_backend_pid()
"""
_KILL_OTHERS = """
    SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
    WHERE datname = current_database() AND pid <> ALL ($1::int[])
"""


@pytest.fixture(scope="module")
def own_server() -> Iterator[PostgresServer]:
    with throwaway_postgres(FAST) as server:
        yield server


@pytest.fixture
async def dsn(own_server: PostgresServer) -> AsyncIterator[str]:
    async with database_on(own_server) as made:
        yield made


@pytest.fixture
async def world() -> AsyncIterator[tuple[VideoServer, FakeBotApi]]:
    async with VideoServer(CLIPS_DIR) as site, FakeBotApi() as api:
        yield site, api


def short_clip(site: VideoServer, path: str) -> str:
    site.set_route(path, Body(site.clip("short").read_bytes(), "video/mp4"))
    return path


def slow_clip(site: VideoServer, path: str, seconds: float) -> str:
    site.set_route(path, Trickle(site.clip("short").read_bytes(), seconds=seconds))
    return path


def exactly_once(made: Deployment, posted: list[tuple[User, int]]) -> list[list[int]]:
    return [[v.reply_to for v in made.api.videos(user.id) if v.reply_to is not None] for user, _ in posted]


def unharmed(made: Deployment) -> None:
    assert [bot.running for bot in made.processes] == [True] * len(made.processes)
    assert made.tracebacks() == []


async def test_a_restart_with_six_links_in_flight_and_two_after_delivers_all_eight_once(
    dsn: str, own_server: PostgresServer, tmp_path: Path, world: tuple[VideoServer, FakeBotApi]
) -> None:
    site, api = world
    async with deployment(dsn, tmp_path, site, api) as made:
        paths = [slow_clip(site, f"/restart/{n}.mp4", seconds=6) for n in range(6)]
        posted = [made.post(path) for path in paths]
        await downloads_in_flight(site, paths)

        await asyncio.to_thread(own_server.restart)  # pg_ctl restart -m fast
        posted += [made.post(short_clip(site, f"/restart/after-{n}.mp4")) for n in range(2)]

        await made.delivered(posted)
        assert exactly_once(made, posted) == [[message] for _, message in posted]
        unharmed(made)


async def test_every_connection_killed_every_two_seconds_for_twenty_delivers_every_link_once(
    dsn: str, tmp_path: Path, world: tuple[VideoServer, FakeBotApi]
) -> None:
    site, api = world
    async with deployment(dsn, tmp_path, site, api) as made:
        posted = [made.post(slow_clip(site, f"/storm/{n}.mp4", seconds=3)) for n in range(4)]
        killer = await asyncpg.connect(dsn)
        killed = 0
        try:
            storm_ends = time.monotonic() + STORM_SECONDS
            while time.monotonic() < storm_ends:
                killed += await killer.fetchval(_KILL_OURS)
                if len(posted) < 8:
                    posted.append(made.post(short_clip(site, f"/storm/during-{len(posted)}.mp4")))
                await asyncio.sleep(STORM_EVERY_SECONDS)
        finally:
            await killer.close()

        await made.delivered(posted)
        assert killed >= 3 * 10  # every process lost its connections again and again
        assert exactly_once(made, posted) == [[message] for _, message in posted]
        unharmed(made)


def overlapping_polls(api: FakeBotApi) -> list[tuple[float, float]]:
    """getUpdates calls that arrived while an earlier one was still in flight: one poller never
    makes those, two pollers do."""
    overlaps, busy_until = [], 0.0
    for arrived, ended in sorted((c.at, c.ended) for c in api.calls_of("getUpdates")):
        if arrived < busy_until:
            overlaps.append((arrived, ended))
        busy_until = max(busy_until, ended)
    return overlaps


async def ingest_lock_backend(dsn: str) -> int:
    connection = await asyncpg.connect(dsn)
    try:
        pid: int = await connection.fetchval(
            "SELECT pid FROM pg_stat_activity WHERE application_name LIKE 'vidrelay ingest %'"
        )
        assert await connection.fetchval("SELECT pg_terminate_backend($1)", pid)
        return pid
    finally:
        await connection.close()


async def test_a_silent_lock_connection_stops_polling_and_polling_resumes_once_the_lock_is_back(
    dsn: str, own_server: PostgresServer, tmp_path: Path, world: tuple[VideoServer, FakeBotApi]
) -> None:
    site, api = world
    async with TcpProxy(own_server.host, own_server.port) as proxy:
        through = proxy.dsn_through(dsn, own_server.port)
        async with deployment(dsn, tmp_path, site, api, ingest_dsn=through) as made:
            proxy.silence()
            fault = time.monotonic()
            await ingest_lock_backend(dsn)  # the server drops the session; the ingest hears nothing

            await until_logged(made.ingest, "the ingest lock is in doubt")
            await api.wait_for(lambda: not api.polling, timeout=max(fault + 10 - time.monotonic(), 0.1))
            standby = made.process("ingest", "standby")
            made.workers.append(standby)  # closed with the deployment, whatever happens
            await standby.start(api)  # it takes the lock, waits out the old holder, then polls
            posted = [made.post(short_clip(site, "/lock/while-standby.mp4"))]
            await made.delivered(posted)
            assert await standby.terminate() == 0  # lets go of the lock cleanly
            made.workers.remove(standby)
            proxy.resume()

            await until_logged(made.ingest, "the ingest lock is ours again: polling resumes")
            posted.append(made.post(short_clip(site, "/lock/after.mp4")))
            await made.delivered(posted, timeout=WAIT_SECONDS)
            assert exactly_once(made, posted) == [[message] for _, message in posted]
            assert overlapping_polls(api) == []
            unharmed(made)


class Hog:
    """Someone else's program holding every connection the server has left, and taking each one
    that frees up."""

    def __init__(self, dsn: str) -> None:
        self._dsn = dsn
        self.held: list[asyncpg.Connection] = []
        self.refused = 0

    async def take_one(self) -> bool:
        try:
            self.held.append(await asyncpg.connect(self._dsn, timeout=5))
        except (asyncpg.TooManyConnectionsError, asyncpg.CannotConnectNowError, OSError):
            self.refused += 1
            return False
        return True

    async def fill(self) -> None:
        while await self.take_one():
            pass

    async def hold_for(self, seconds: float) -> None:
        ends = time.monotonic() + seconds
        while time.monotonic() < ends:
            if not await self.take_one():
                await asyncio.sleep(0.02)

    async def release(self) -> None:
        await asyncio.gather(*(c.close() for c in self.held), return_exceptions=True)


async def test_a_full_connection_table_holds_the_links_back_and_they_are_delivered_once_it_frees(
    dsn: str, tmp_path: Path, world: tuple[VideoServer, FakeBotApi]
) -> None:
    site, api = world
    async with deployment(dsn, tmp_path, site, api) as made:
        hog = Hog(dsn)
        try:
            await hog.fill()
            hogged = [c.get_server_pid() for c in hog.held]
            await hog.held[0].fetchval(_KILL_OTHERS, hogged)  # the hog's own slots stay taken
            posted = [made.post(short_clip(site, f"/full/{n}.mp4")) for n in range(2)]
            await hog.hold_for(10.0)
        finally:
            await hog.release()

        await made.delivered(posted)
        assert any("too many clients" in bot.log() for bot in made.processes)  # they were refused
        assert exactly_once(made, posted) == [[message] for _, message in posted]
        unharmed(made)
