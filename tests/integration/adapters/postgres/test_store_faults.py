"""The PostgreSQL store when its driver fails or its network goes silent: no caller waits past its
bound, the store's tasks come back by themselves, the jobs complete, and /healthz says the truth.

Two faults: asyncpg's InternalClientError ("cannot switch to state 12; another operation is in
progress", which a server restart under load produces but not on demand), raised by connections of
the test's own; and a TCP proxy between the store and the server that stops forwarding while every
socket stays open, the fault no error reports.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, ClassVar

import asyncpg
import pytest
from aiohttp.test_utils import TestClient, TestServer
from dependency_injector import providers
from returns.result import Success

from adapters.postgres import PostgresStore
from adapters.postgres.connection import KeptAliveConnection
from adapters.postgres.limits import SessionLimits
from adapters.system.clock import SystemClock
from core.jobs.registry import JobContext, JobOutcome, JobType
from entrypoints.monitoring.metrics import metrics_app
from ports.errors import StoreError
from ports.jobs import NewJob
from testkit.postgres import PostgresServer
from testkit.tcp_proxy import TcpProxy
from tests.support.clock import VirtualClock
from tests.support.world import faked_container

NOW = 1_700_000_000.0
LEASE = 30.0
SHORT = SessionLimits(statement_seconds=1.0, grace_seconds=0.5, idle_in_transaction_seconds=2.0)
"""Every call gives up 1.5 s after it was made."""
PATIENCE = 30.0
"""How long the test waits for what must happen far sooner: a hang fails the test, not the run."""
STATE_12 = "cannot switch to state 12; another operation is in progress"


class Stuck(KeptAliveConnection):
    """Connections that fail every claim round trip as asyncpg does mid-restart, while told to."""

    failing: ClassVar[bool] = False

    async def fetch(self, query: str, *args: Any, **kwargs: Any) -> Any:
        if Stuck.failing and "vidrelay_claim" in query:
            raise asyncpg.InternalClientError(STATE_12)
        return await super().fetch(query, *args, **kwargs)


@pytest.fixture
def stuck() -> AsyncIterator[type[Stuck]]:
    Stuck.failing = False
    yield Stuck
    Stuck.failing = False


async def within(awaitable: Any) -> Any:
    return await asyncio.wait_for(awaitable, PATIENCE)


async def test_an_internal_client_error_fails_the_claims_waiting_and_the_next_claims_work(
    pg_migrated_dsn: str, stuck: type[Stuck]
) -> None:
    store = await PostgresStore.open(pg_migrated_dsn, node="n", connection_class=stuck, clock=SystemClock())
    try:
        job_id = await store.enqueue(NewJob("noop", {}, 3), NOW)
        stuck.failing = True

        answers = await within(
            asyncio.gather(*(store.claim(f"w{n}", NOW, LEASE) for n in range(3)), return_exceptions=True)
        )

        assert [type(a) for a in answers] == [StoreError] * 3
        assert all(STATE_12 in str(a) for a in answers)
        stuck.failing = False
        job = await within(store.claim("w0", NOW, LEASE))
        assert job is not None
        assert job.id == job_id
        assert await within(store.complete(job.lease))
    finally:
        await store.close()


async def test_a_silent_network_fails_every_call_within_its_bound_and_the_store_recovers(
    pg_migrated_dsn: str, postgres_server: PostgresServer
) -> None:
    async with TcpProxy(postgres_server.host, postgres_server.port) as proxy:
        dsn = proxy.dsn_through(pg_migrated_dsn, postgres_server.port)
        store = await PostgresStore.open(dsn, node="n", limits=SHORT, clock=SystemClock())
        try:
            await store.enqueue(NewJob("noop", {}, 3), NOW)
            job = await store.claim("w", NOW, LEASE)
            assert job is not None
            proxy.silence()

            calls = (
                store.renew("w", [job.lease], NOW + 1, LEASE),
                store.complete(job.lease),
                store.claim("w", NOW, LEASE),
                store.enqueue(NewJob("noop", {}, 3), NOW),
                store.counts(),
            )
            answers = await within(asyncio.gather(*calls, return_exceptions=True))

            assert [type(a) for a in answers] == [StoreError] * len(calls)
            proxy.resume()
            assert await within(store.complete(job.lease))  # the lease held: nothing else ran it
        finally:
            await within(store.close())


@asynccontextmanager
async def served(store: PostgresStore, tmp_path: Path, ran: Counter[int]) -> AsyncIterator[TestClient]:
    """The bot's engine and /healthz as the container builds them, on `store`, with a no-op job
    type that counts its runs; the worker role (no updates expected)."""

    async def noop(context: JobContext) -> JobOutcome:
        ran[int(context.payload["n"])] += 1
        return Success(None)

    container = faked_container(VirtualClock(), tmp_path, VIDRELAY_JOB_CONCURRENCY="2")
    container.clock.override(providers.Object(SystemClock()))
    container.store.override(providers.Object(store))
    container.jobs.override(providers.Object([JobType("noop", noop, timeout_seconds=30.0)]))
    engine = container.engine()
    observed = container.observed()
    observed.liveness.expect(updates=False, jobs=True)
    store.on_work(engine.wake)
    await engine.start()
    try:
        async with TestClient(TestServer(metrics_app(observed))) as client:
            yield client
    finally:
        await engine.stop(grace_seconds=5)


async def health_becomes(client: TestClient, status: int) -> str:
    deadline = asyncio.get_running_loop().time() + PATIENCE
    while True:
        answer = await client.get("/healthz")
        text = await answer.text()
        if answer.status == status:
            return text
        assert asyncio.get_running_loop().time() < deadline, f"/healthz stayed {answer.status}: {text}"
        await asyncio.sleep(0.2)


async def all_ran(ran: Counter[int], count: int) -> None:
    deadline = asyncio.get_running_loop().time() + PATIENCE
    while len(ran) < count:
        assert asyncio.get_running_loop().time() < deadline, f"only {sorted(ran)} ran"
        await asyncio.sleep(0.05)


Fault = Callable[[], None]


async def enqueue_six(store: PostgresStore) -> None:
    for n in range(6):
        await within(store.enqueue(NewJob("noop", {"n": n}, 3), NOW))


@pytest.mark.parametrize("fault", ["internal_client_error", "silent_network"])
async def test_while_the_store_is_stuck_healthz_is_503_and_after_it_every_job_completes_once(
    pg_migrated_dsn: str, postgres_server: PostgresServer, stuck: type[Stuck], tmp_path: Path, fault: str
) -> None:
    async with TcpProxy(postgres_server.host, postgres_server.port) as proxy:
        dsn = proxy.dsn_through(pg_migrated_dsn, postgres_server.port)
        store = await PostgresStore.open(
            dsn, node="n", limits=SHORT, connection_class=stuck, clock=SystemClock()
        )
        ran: Counter[int] = Counter()
        try:
            async with served(store, tmp_path, ran) as client:
                await health_becomes(client, 200)
                cause, cure = _fault(fault, proxy, stuck)
                cause()
                # Enqueues go through the pool, not the claims' round trip: they still land while
                # the claims fail, and once a silent network is back.
                if fault == "internal_client_error":
                    await enqueue_six(store)

                assert "unhealthy" in await health_becomes(client, 503)
                cure()
                if fault == "silent_network":
                    await enqueue_six(store)
                await all_ran(ran, 6)
                assert await health_becomes(client, 200) == "ok\n"
            assert ran == Counter(range(6))  # each exactly once
            assert (await store.counts()).waiting == 0
        finally:
            await within(store.close())


def _fault(name: str, proxy: TcpProxy, stuck: type[Stuck]) -> tuple[Fault, Fault]:
    if name == "internal_client_error":

        def fail() -> None:
            stuck.failing = True

        def heal() -> None:
            stuck.failing = False

        return fail, heal
    return proxy.silence, proxy.resume
