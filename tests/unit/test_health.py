"""`/healthz`'s verdict: updates come in, and every worker is alive."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from entrypoints.bot.health import Receiving, health_problem


@dataclass
class Pool:
    live_workers: int = 3
    worker_count: int = 3


async def test_healthy_only_while_polling_runs_and_every_worker_lives() -> None:
    receiving = Receiving()
    assert health_problem(receiving, Pool()) == (
        "not receiving updates (polling or the webhook server is not running)"
    )
    polling = asyncio.get_running_loop().create_future()
    receiving.polling(polling)
    assert health_problem(receiving, Pool()) is None
    assert health_problem(receiving, Pool(live_workers=1)) == "1 of 3 workers alive"
    polling.set_result(None)  # the polling loop ended
    assert health_problem(receiving, Pool()) is not None


def test_a_listening_webhook_server_counts_as_receiving() -> None:
    receiving = Receiving()
    receiving.webhook(listening=True)
    assert health_problem(receiving, Pool()) is None
    receiving.stopped()
    assert health_problem(receiving, Pool()) is not None
