"""`/healthz`'s verdict: updates come in, and every worker is alive — as far as the role asks."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from core.jobs.health import EngineHealth
from entrypoints.monitoring.health import health_problem
from entrypoints.monitoring.liveness import Liveness

NOT_RECEIVING = "not receiving updates (polling or the webhook server is not running)"


@dataclass
class Pool:
    live_workers: int = 3
    worker_count: int = 3
    missing_for: float = 31.0
    """How long a worker has been missing, when one is: past the 30 s grace unless told."""
    store_refuses_writes: bool = False

    def health(self) -> EngineHealth:
        short_for = self.missing_for if self.live_workers < self.worker_count else 0.0
        return EngineHealth(self.live_workers, self.worker_count, short_for, self.store_refuses_writes, 30.0)


async def test_healthy_only_while_polling_runs_and_every_worker_lives() -> None:
    liveness = Liveness()
    assert health_problem(liveness, Pool()) == NOT_RECEIVING
    polling: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    liveness.polling(polling)
    assert health_problem(liveness, Pool()) is None
    assert health_problem(liveness, Pool(live_workers=1)) == "1 of 3 workers alive"
    polling.set_result(None)  # the polling loop ended
    assert health_problem(liveness, Pool()) == NOT_RECEIVING


def test_a_listening_webhook_server_counts_as_receiving() -> None:
    liveness = Liveness()
    liveness.webhook(listening=True)
    assert health_problem(liveness, Pool()) is None
    liveness.stopped()
    assert health_problem(liveness, Pool()) == NOT_RECEIVING


def test_each_role_is_asked_only_for_its_own_work() -> None:
    worker = Liveness()
    worker.expect(updates=False, jobs=True)  # never polls
    assert health_problem(worker, Pool()) is None
    assert health_problem(worker, Pool(live_workers=2)) == "2 of 3 workers alive"
    ingest = Liveness()
    ingest.expect(updates=True, jobs=False)  # runs no jobs
    ingest.webhook(listening=True)
    assert health_problem(ingest, Pool(live_workers=0)) is None


def test_a_worker_restarting_after_a_crash_is_unhealthy_only_once_its_grace_is_over() -> None:
    worker = Liveness()
    worker.expect(updates=False, jobs=True)
    assert health_problem(worker, Pool(live_workers=2, missing_for=30.0)) is None
    assert health_problem(worker, Pool(live_workers=2, missing_for=30.5)) == "2 of 3 workers alive"


def test_a_store_that_refuses_writes_is_unhealthy_for_every_role() -> None:
    refusing = "the store refuses writes"
    ingest = Liveness()
    ingest.expect(updates=True, jobs=False)
    ingest.webhook(listening=True)
    assert health_problem(ingest, Pool(live_workers=0, store_refuses_writes=True)) == refusing
    worker = Liveness()
    worker.expect(updates=False, jobs=True)
    assert health_problem(worker, Pool(store_refuses_writes=True)) == refusing
