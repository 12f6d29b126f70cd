"""A group commit answers exactly as its operations would one at a time: finishing writes first,
then new jobs, then claims, each kind in the order it was sent. Two stores start from the same
rows; one runs the operations as one batch, the other one after another; their answers and
their rows must agree. The rows cover what a claim must respect: due times on either side of the
claims' own `now`, quick rows, suspects, a holder that holds a suspect, a dead holder whose rows
are taken back, paused keys, a second holder in the batch."""

from __future__ import annotations

import asyncio
import functools
import shutil
import tempfile
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from adapters.sqlite import SqliteStore
from ports.jobs import HandledUrlGuard, Lease, NewJob
from tests.support.sqlite_files import NOW, other_connection
from tests.support.store_clock import SqliteClock

_ROW = """
    INSERT INTO jobs (name, payload, max_attempts, available_at, key, created_at, claimed_by,
        lease_until, token, suspect, requester, turn)
    VALUES ('n', '{}', 3, ?, ?, 0, ?, ?, ?, ?, ?, ?)
"""


@dataclass(frozen=True)
class Row:
    due_in: float
    quick: bool
    suspect: bool
    holder: str | None  # "w": alive; "gone": its lease ended
    key: str
    requester: int | None

    def values(self, turn: int) -> tuple[object, ...]:
        lease = {"w": NOW + 60, "gone": NOW - 1}.get(self.holder or "")
        token = 0 if self.holder is None else 1
        return (
            NOW + self.due_in,
            self.key,
            self.holder,
            lease,
            token,
            int(self.suspect),
            self.requester,
            turn,
        )


@dataclass(frozen=True)
class Op:
    kind: str  # "claim", "complete", "enqueue"
    worker: str = "w"
    at: float = 0.0
    lane: str = "free"  # "free", "quick", "paused"
    job_id: int = 1
    requester: int | None = None
    quick: bool = False
    mark: int | None = None

    def on(self, store: SqliteStore) -> Awaitable[Any]:
        now = NOW + self.at
        if self.kind == "claim":
            paused = {"k1"} if self.lane == "paused" else set()
            return store.claim(self.worker, now, 60, paused, quick_only=self.lane == "quick")
        if self.kind == "complete":
            return store.complete(Lease(self.job_id, 1))
        guard = None if self.mark is None else HandledUrlGuard(1, self.mark, "https://example.com/v")
        return store.enqueue(NewJob("n", {}, 3, requester=self.requester, quick=self.quick), now, guard)


rows = st.builds(
    Row,
    due_in=st.sampled_from([-5.0, 0.0, 2.0, 5.0, 20.0]),
    quick=st.booleans(),
    suspect=st.sampled_from([False, False, False, True]),
    holder=st.sampled_from([None, None, None, None, None, None, "w", "gone"]),
    key=st.sampled_from(["", "k1"]),
    requester=st.sampled_from([None, 7, 8]),
)
claims = st.builds(
    Op,
    kind=st.just("claim"),
    worker=st.sampled_from(["w", "w", "w", "v"]),
    at=st.sampled_from([0.0, 3.0, 10.0]),
    lane=st.sampled_from(["free", "free", "quick", "paused"]),
)
completions = st.builds(Op, kind=st.just("complete"), job_id=st.integers(1, 8))
enqueues = st.builds(
    Op,
    kind=st.just("enqueue"),
    at=st.sampled_from([0.0, 3.0]),
    requester=st.sampled_from([None, 7, 8]),
    quick=st.booleans(),
    mark=st.sampled_from([None, 1, 2]),
)


async def _open(path: Path, start: list[Row], clock: SqliteClock, *, fair: bool) -> SqliteStore:
    shutil.copy(_template(), path)
    store = await SqliteStore.open(path, connection_class=clock.connection_class, fair=fair)
    for turn, row in enumerate(start):
        other_connection(path, _ROW, row.values(-1 if row.quick else turn // 2))
    other_connection(path, "INSERT INTO handled_urls VALUES (1, 2, 'https://example.com/v', 0)")
    return store


async def _both(tmp: Path, start: list[Row], ops: list[Op], *, fair: bool = True) -> None:
    clock = SqliteClock(NOW)
    batched = await _open(tmp / "batched.db", start, clock, fair=fair)
    alone = await _open(tmp / "alone.db", start, clock, fair=fair)
    try:
        before = batched.transactions
        together = await asyncio.gather(*(op.on(batched) for op in ops))
        assert batched.transactions == before + 1
        rank = {"complete": 0, "enqueue": 1, "claim": 2}
        one_by_one: list[Any] = [None] * len(ops)
        for index in sorted(range(len(ops)), key=lambda i: rank[ops[i].kind]):
            one_by_one[index] = await ops[index].on(alone)
        assert together == one_by_one
        assert _table(tmp / "batched.db") == _table(tmp / "alone.db")
    finally:
        await batched.close()
        await alone.close()


@functools.cache
def _template() -> Path:
    """An empty store's file, migrated once: each example starts from a copy."""
    path = Path(tempfile.mkdtemp(prefix="vidrelay-batch-")) / "template.db"

    async def make() -> None:
        await (await SqliteStore.open(path)).close()

    asyncio.run(make())
    return path


def _table(path: Path) -> list[Any]:
    return other_connection(path, "SELECT * FROM jobs ORDER BY id") + other_connection(
        path, "SELECT * FROM handled_urls ORDER BY message_id"
    )


def _run(tmp_path_factory: Any, test: Callable[[Path], Coroutine[Any, Any, None]]) -> None:
    _template()  # made outside the example's event loop
    asyncio.run(test(tmp_path_factory.mktemp("batch")))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(start=st.lists(rows, max_size=6), ops=st.lists(claims, min_size=1, max_size=6))
# A row due after the first claim's `now`, before the second's: only the second may take it.
@example(start=[Row(5.0, False, False, None, "", None)], ops=[Op("claim", at=0.0), Op("claim", at=10.0)])
# Rows due only for a later claim fill the read: the second claim looks again, and before the
# quick lane's claim sent after it (which would take its row otherwise).
@example(
    start=[Row(5.0, True, False, None, "", None)] * 3 + [Row(-5.0, True, False, None, "", None)],
    ops=[Op("claim", at=10.0), Op("claim", at=0.0), Op("claim", at=0.0, lane="quick")],
)
def test_claims_in_one_batch_find_what_they_would_one_at_a_time(
    tmp_path_factory: Any, start: list[Row], ops: list[Op]
) -> None:
    _run(tmp_path_factory, lambda tmp: _both(tmp, start, ops))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    start=st.lists(rows, max_size=6),
    ops=st.lists(st.one_of(claims, completions, enqueues), min_size=1, max_size=8),
    fair=st.booleans(),
)
def test_a_mixed_batch_answers_as_its_operations_one_at_a_time(
    tmp_path_factory: Any, start: list[Row], ops: list[Op], fair: bool
) -> None:
    _run(tmp_path_factory, lambda tmp: _both(tmp, start, ops, fair=fair))
