"""The ingest lock, kept: a lost session puts it in doubt at once, a silent one within a probe,
the keeper takes it back by itself, and a new holder waits until the old one must have stopped,
so that two holders are never `held` at the same time."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from adapters.postgres.ingest_lock import (
    PROBE_SECONDS,
    PROBE_TIMEOUT_SECONDS,
    TAKEOVER_SECONDS,
    IngestLock,
    IngestLocked,
)
from adapters.system.clock import SystemClock
from testkit.postgres import PostgresServer
from testkit.tcp_proxy import TcpProxy
from tests.support.clock import VirtualClock
from tests.support.integration import wait_until

PATIENCE = 60.0
"""How long the test waits for what must happen far sooner: a hang fails the test, not the run."""


@pytest.fixture
def dsn(pg_migrated_dsn: str) -> str:
    return pg_migrated_dsn


async def terminate(dsn: str, pid: int | None) -> None:
    assert pid is not None
    killer = await asyncpg.connect(dsn)
    try:
        assert await killer.fetchval("SELECT pg_terminate_backend($1)", pid)
    finally:
        await killer.close()


class Holding:
    """Who held the lock when, sampled finely: the test's record that two never held it at once."""

    def __init__(self, **locks: IngestLock) -> None:
        self.locks = dict(locks)
        self.overlaps = 0
        self._task = asyncio.ensure_future(self._watch())

    async def _watch(self) -> None:
        while True:
            self.overlaps += sum(lock.held.is_set() for lock in self.locks.values()) > 1
            await asyncio.sleep(0.005)

    def stop(self) -> None:
        self._task.cancel()


async def test_a_second_take_is_refused_naming_the_holder(dsn: str) -> None:
    lock = await IngestLock.take(dsn, clock=SystemClock())
    try:
        with pytest.raises(IngestLocked, match=r"another vidrelay ingest is running .*\(vidrelay ingest "):
            await IngestLock.take(dsn, clock=SystemClock())
    finally:
        await lock.release()


async def test_a_terminated_session_puts_the_lock_in_doubt_and_the_keeper_takes_it_back(dsn: str) -> None:
    lock = await IngestLock.take(dsn, clock=SystemClock())
    try:
        first = lock.backend_pid
        await terminate(dsn, first)

        await asyncio.wait_for(lock.in_doubt.wait(), PATIENCE)
        await asyncio.wait_for(lock.held.wait(), PATIENCE)  # its own last sign of life: no wait

        assert lock.backend_pid not in (None, first)
    finally:
        await lock.release()


async def test_a_silent_lock_is_in_doubt_within_a_probe_and_its_successor_never_overlaps_it(
    dsn: str, postgres_server: PostgresServer
) -> None:
    async with TcpProxy(postgres_server.host, postgres_server.port) as proxy:
        old = await IngestLock.take(proxy.dsn_through(dsn, postgres_server.port), clock=SystemClock())
        holding = Holding(old=old)
        try:
            silent_pid = old.backend_pid
            proxy.silence()
            await terminate(dsn, silent_pid)  # the server drops the session; the old holder hears nothing
            taking = asyncio.ensure_future(IngestLock.take(dsn, clock=SystemClock()))

            await asyncio.wait_for(old.in_doubt.wait(), PROBE_SECONDS + PROBE_TIMEOUT_SECONDS + 5)
            new = await asyncio.wait_for(taking, PATIENCE)
            holding.locks["new"] = new
            await new.release()  # cleanly: whoever comes next starts at once
            proxy.resume()

            await asyncio.wait_for(old.held.wait(), PATIENCE)  # taken back by its keeper
        finally:
            holding.stop()
            await old.release()
    assert holding.overlaps == 0


async def test_a_new_holder_waits_out_the_last_sign_of_life_of_a_holder_in_another_process(
    dsn: str, clock: VirtualClock
) -> None:
    """The last holder was another process, seen just now, and no longer holds the lock (it died,
    or went silent and its session was dropped): the new one sleeps until that one must have
    stopped polling, then holds the lock. (The database's clock is compared with the float the
    row keeps: extract() answers numeric, which asyncpg hands over as a Decimal.)"""
    writer = await asyncpg.connect(dsn)
    try:
        await writer.execute(
            "INSERT INTO vidrelay_ingest (holder, seen_at)"
            " VALUES ('vidrelay ingest elsewhere pid 1', extract(epoch FROM clock_timestamp()))"
            " ON CONFLICT (one) DO UPDATE SET holder = EXCLUDED.holder, seen_at = EXCLUDED.seen_at"
        )
    finally:
        await writer.close()
    taking = asyncio.ensure_future(IngestLock.take(dsn, clock=clock))
    try:
        await wait_until(lambda: clock.sleepers == 1 or taking.done(), PATIENCE)
        assert not taking.done(), taking.exception() or "taken without waiting out the last holder"

        await clock.advance(TAKEOVER_SECONDS)
        lock = await asyncio.wait_for(taking, PATIENCE)
    finally:
        taking.cancel()
    try:
        assert lock.held.is_set()
    finally:
        await lock.release()
