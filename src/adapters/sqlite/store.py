"""Every store port on one embedded SQLite file (aiosqlite, WAL), with the memory store's semantics.

Each port method is one function run by the group-commit writer: its own SAVEPOINT inside a
shared transaction, so every method is atomic on its own and no two ever interleave. Row
shapes: the SELECT/RETURNING column lists below are the order codec's *_from_row functions
unpack.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Collection, Sequence
from functools import partial
from pathlib import Path
from typing import Any, Final

import aiosqlite

from adapters.sqlite import codec
from adapters.sqlite.schema import MIGRATIONS, Migration, SchemaTooNew, migrate
from adapters.sqlite.writer import DRIVER_ERRORS, GroupCommitWriter, Work, connect, on_connection_thread
from ports.blobs import BlobRecord
from ports.errors import StoreError
from ports.jobs import FailedJob, Guard, HandledUrlGuard, Job, NewJob, QueueCounts, SingletonGuard
from ports.json import Payload
from ports.media import VideoInfo
from ports.pending import CancelOutcome, PendingRequest
from ports.store import Store

SYNCHRONOUS_LEVELS: Final = ("OFF", "NORMAL", "FULL", "EXTRA")
DEFAULT_SYNCHRONOUS: Final = "FULL"
"""Every commit is on disk (fsynced) before anyone hears "done"; bench/queue_throughput.py
measures what this costs against NORMAL."""

# Jobs ------------------------------------------------------------------------------------------

# The claim walks the primary key in id order (FIFO) and stops at the first claimable row: cheap
# however long the queue. Left free to use the available_at index, the planner sorts every due
# row instead (milliseconds per claim at 20k queued rows); NOT INDEXED pins the plan, a test
# checks it.
_CLAIM_ANY = """
    UPDATE jobs SET attempts = attempts + 1, claimed_by = ?, lease_until = ?
    WHERE id = (
        SELECT id FROM jobs NOT INDEXED
        WHERE available_at <= ? AND (lease_until IS NULL OR lease_until <= ?)
        ORDER BY id LIMIT 1
    )
    RETURNING id, name, payload, attempts, max_attempts, available_at, created_at, key, owner_id,
        claimed_by, lease_until, last_error
"""
_CLAIM_UNPAUSED = """
    UPDATE jobs SET attempts = attempts + 1, claimed_by = ?, lease_until = ?
    WHERE id = (
        SELECT id FROM jobs NOT INDEXED
        WHERE available_at <= ? AND (lease_until IS NULL OR lease_until <= ?)
            AND key NOT IN (SELECT value FROM json_each(?))
        ORDER BY id LIMIT 1
    )
    RETURNING id, name, payload, attempts, max_attempts, available_at, created_at, key, owner_id,
        claimed_by, lease_until, last_error
"""
_INSERT_JOB = """
    INSERT INTO jobs (name, payload, attempts, max_attempts, available_at, key, owner_id, created_at)
    VALUES (?, ?, 0, ?, ?, ?, ?, ?)
"""
_SAME_NAME_EXISTS = "SELECT 1 FROM jobs WHERE name = ? LIMIT 1"
_COUNT_FOR_OWNER = "SELECT count(*) FROM jobs WHERE owner_id = ?"
_MARK_HANDLED = """
    INSERT INTO handled_urls (chat_id, message_id, url, created_at) VALUES (?, ?, ?, ?)
    ON CONFLICT DO NOTHING
"""
_RETRY_LATER = """
    UPDATE jobs SET available_at = ?, last_error = ?, claimed_by = NULL, lease_until = NULL
    WHERE id = ?
"""
_RELEASE = """
    UPDATE jobs SET attempts = max(attempts - 1, 0), available_at = ?, claimed_by = NULL,
        lease_until = NULL
    WHERE id = ?
"""
_TAKE_FOR_DEAD_LETTER = """
    DELETE FROM jobs WHERE id = ?
    RETURNING name, payload, attempts, max_attempts, key, owner_id, created_at
"""
_INSERT_FAILED = """
    INSERT INTO failed_jobs (job_id, name, payload, error, attempts, max_attempts, key, owner_id,
        created_at, failed_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    RETURNING id, job_id, name, payload, error, attempts, max_attempts, created_at, failed_at, key,
        owner_id
"""
_EXHAUSTED = """
    SELECT id, name, payload, attempts, max_attempts, available_at, created_at, key, owner_id,
        claimed_by, lease_until, last_error
    FROM jobs
    WHERE attempts >= max_attempts AND (lease_until IS NULL OR lease_until <= ?)
    ORDER BY id
"""
_NEXT_DUE = """
    SELECT available_at FROM jobs WHERE lease_until IS NULL OR lease_until <= ?
    ORDER BY available_at LIMIT 1
"""
_NEXT_DUE_UNPAUSED = """
    SELECT available_at FROM jobs
    WHERE (lease_until IS NULL OR lease_until <= ?) AND key NOT IN (SELECT value FROM json_each(?))
    ORDER BY available_at LIMIT 1
"""
_NEXT_LEASE_END = "SELECT lease_until FROM jobs WHERE lease_until > ? ORDER BY lease_until LIMIT 1"
_NEXT_LEASE_END_UNPAUSED = """
    SELECT lease_until FROM jobs
    WHERE lease_until > ? AND key NOT IN (SELECT value FROM json_each(?))
    ORDER BY lease_until LIMIT 1
"""
_LIST_JOBS = """
    SELECT id, name, payload, attempts, max_attempts, available_at, created_at, key, owner_id,
        claimed_by, lease_until, last_error
    FROM jobs ORDER BY id LIMIT ?
"""
_LIST_FAILED = """
    SELECT id, job_id, name, payload, error, attempts, max_attempts, created_at, failed_at, key,
        owner_id
    FROM failed_jobs ORDER BY id LIMIT ?
"""
_FAILED_TO_RETRY_ALL = "SELECT id, name, payload, max_attempts, key, owner_id FROM failed_jobs ORDER BY id"
_FAILED_TO_RETRY_SOME = """
    SELECT id, name, payload, max_attempts, key, owner_id FROM failed_jobs
    WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id
"""

# Pending, blobs, info --------------------------------------------------------------------------

_PARK = """
    INSERT OR REPLACE INTO pending (id, chat_id, user_id, message_id, job_name, job_payload,
        job_max_attempts, job_available_at, job_key, job_owner_id, blob_key, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
"""
_PENDING = """
    SELECT id, chat_id, user_id, message_id, job_name, job_payload, job_max_attempts,
        job_available_at, job_key, job_owner_id, blob_key, created_at
    FROM pending WHERE id = ?
"""
_ADOPT = """
    DELETE FROM pending WHERE id = ?
    RETURNING job_name, job_payload, job_max_attempts, job_available_at, job_key, job_owner_id
"""
_EXPIRE = """
    DELETE FROM pending WHERE created_at < ?
    RETURNING id, chat_id, user_id, message_id, job_name, job_payload, job_max_attempts,
        job_available_at, job_key, job_owner_id, blob_key, created_at
"""
_PINNED_BY_PENDING = "SELECT 1 FROM pending WHERE blob_key = ? LIMIT 1"
_PINNED = "SELECT DISTINCT blob_key FROM pending WHERE blob_key IS NOT NULL AND blob_key <> ''"
_BLOB = """
    SELECT key, file_name, size, duration, width, height, file_id, file_unique_id, created_at,
        last_used
    FROM blobs WHERE key = ?
"""
_ALL_BLOBS = """
    SELECT key, file_name, size, duration, width, height, file_id, file_unique_id, created_at,
        last_used
    FROM blobs ORDER BY key
"""
_PUT_BLOB = """
    INSERT OR REPLACE INTO blobs (key, file_name, size, duration, width, height, file_id,
        file_unique_id, created_at, last_used)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
"""
_CACHE_INFO = "INSERT OR REPLACE INTO video_info (url, entries, canonical, created_at) VALUES (?, ?, ?, ?)"
_SWEEP_INFO = "DELETE FROM video_info WHERE created_at < ?"
_SWEEP_HANDLED = "DELETE FROM handled_urls WHERE created_at < ?"
# Evicting a URL takes every alias with it: the URL, its canonical URLs, and every row sharing
# one of them. A row whose canonical list is damaged contributes no aliases instead of failing.
_EVICT_INFO = """
    WITH doomed(url) AS (
        SELECT :url
        UNION
        SELECT alias.value
        FROM video_info AS v,
            json_each(CASE WHEN json_valid(v.canonical) THEN v.canonical ELSE '[]' END) AS alias
        WHERE v.url = :url
    )
    DELETE FROM video_info
    WHERE url IN doomed
        OR EXISTS (
            SELECT 1
            FROM json_each(CASE WHEN json_valid(canonical) THEN canonical ELSE '[]' END) AS alias
            WHERE alias.value IN doomed
        )
"""
# The empty URL marks the message itself: no link is ever empty, so it never blocks a job.
_REMEMBER_MESSAGE = """
    INSERT INTO handled_urls (chat_id, message_id, url, created_at) VALUES (?, ?, '', ?)
    ON CONFLICT DO NOTHING
"""
_KNOWS_MESSAGE = "SELECT 1 FROM handled_urls WHERE chat_id = ? AND message_id = ? LIMIT 1"

# Install secrets -------------------------------------------------------------------------------

_KEEP_FIRST_CANDIDATE = """
    INSERT INTO install_secrets (name, value, created_at)
    VALUES (?, ?, (julianday('now') - 2440587.5) * 86400.0)
    ON CONFLICT DO NOTHING
"""
_STORED_VALUE = "SELECT value FROM install_secrets WHERE name = ?"


class SqliteStore(Store):
    def __init__(self, connection: aiosqlite.Connection, writer: GroupCommitWriter) -> None:
        """Use `SqliteStore.open`."""
        self._connection = connection
        self._writer = writer
        self._closed = False

    @classmethod
    async def open(
        cls,
        path: Path,
        *,
        synchronous: str = DEFAULT_SYNCHRONOUS,
        busy_timeout_seconds: float = 5.0,
        migrations: Sequence[Migration] = MIGRATIONS,
    ) -> SqliteStore:
        """Open (creating if needed) and migrate the file at `path`; StoreError if it cannot."""
        level = synchronous.upper()
        if level not in SYNCHRONOUS_LEVELS:
            raise ValueError(f"synchronous must be one of {SYNCHRONOUS_LEVELS}, not {synchronous!r}")
        try:
            _owner_only(path)
            connection = await connect(path)
        except (*DRIVER_ERRORS, OSError) as error:
            raise StoreError(f"cannot open the SQLite file {path}: {error}") from error
        try:
            busy_ms = int(busy_timeout_seconds * 1000)
            await on_connection_thread(connection, partial(_prepare, synchronous=level, busy_ms=busy_ms))
            await on_connection_thread(connection, partial(migrate, migrations=migrations))
        except (*DRIVER_ERRORS, SchemaTooNew) as error:
            await connection.close()
            raise StoreError(f"cannot prepare the SQLite file {path}: {error}") from error
        except BaseException:
            await connection.close()
            raise
        writer = GroupCommitWriter(connection)
        writer.start()
        return cls(connection, writer)

    async def close(self) -> None:
        """Finish the operations already submitted, then close the file."""
        if self._closed:
            return
        self._closed = True
        await self._writer.close()
        try:
            await self._connection.close()
        except DRIVER_ERRORS as error:
            raise StoreError(f"closing the SQLite file failed: {error}") from error

    @property
    def transactions(self) -> int:
        """Transactions (group commits) run so far."""
        return self._writer.transactions

    async def execute(self, sql: str, parameters: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        """One raw statement through the single writer path (its own savepoint): for maintenance
        and tests, e.g. a TEMP TRIGGER, which exists on this connection only."""
        rows: list[tuple[Any, ...]] = await self._write(
            lambda c: c.execute(sql, tuple(parameters)).fetchall()
        )
        return rows

    async def _write(self, work: Work[Any]) -> Any:
        return await self._writer.submit(work)

    async def _read(self, work: Work[Any]) -> Any:
        return await self._writer.submit(work, writes=False)

    # JobStore ------------------------------------------------------------------------------

    async def enqueue(self, job: NewJob, now: float, guard: Guard | None = None) -> int | None:
        payload = codec.dump_json(job.payload)

        def work(c: sqlite3.Connection) -> int | None:
            match guard:
                case HandledUrlGuard(chat_id=chat, message_id=message, url=url):
                    if c.execute(_MARK_HANDLED, (chat, message, url, now)).rowcount == 0:
                        return None
                case SingletonGuard():
                    if c.execute(_SAME_NAME_EXISTS, (job.name,)).fetchone():
                        return None
            return _insert_job(c, job, payload, now)

        job_id: int | None = await self._write(work)
        return job_id

    async def claim(
        self, worker_id: str, now: float, lease_seconds: float, paused_keys: Collection[str] = ()
    ) -> Job | None:
        lease_until = now + lease_seconds
        sql = _CLAIM_UNPAUSED if paused_keys else _CLAIM_ANY
        params: tuple[object, ...] = (worker_id, lease_until, now, now)
        if paused_keys:
            params = (*params, codec.dump_json(sorted(paused_keys)))

        def work(c: sqlite3.Connection) -> Job | None:
            row = c.execute(sql, params).fetchone()
            return None if row is None else codec.job_from_row(row)

        job: Job | None = await self._write(work)
        return job

    async def complete(self, job_id: int) -> None:
        await self._write(lambda c: c.execute("DELETE FROM jobs WHERE id = ?", (job_id,)))

    async def retry_later(self, job_id: int, available_at: float, error: str) -> None:
        await self._write(lambda c: c.execute(_RETRY_LATER, (available_at, error, job_id)))

    async def release(self, job_id: int, available_at: float) -> None:
        await self._write(lambda c: c.execute(_RELEASE, (available_at, job_id)))

    async def update_payload(self, job_id: int, payload: Payload) -> None:
        text = codec.dump_json(payload)
        await self._write(lambda c: c.execute("UPDATE jobs SET payload = ? WHERE id = ?", (text, job_id)))

    async def dead_letter(self, job_id: int, error: str, now: float) -> FailedJob | None:
        def work(c: sqlite3.Connection) -> FailedJob | None:
            taken = c.execute(_TAKE_FOR_DEAD_LETTER, (job_id,)).fetchall()
            if not taken:
                return None
            name, payload, attempts, max_attempts, key, owner, created = taken[0]
            values = (job_id, name, payload, error, attempts, max_attempts, key, owner, created, now)
            return codec.failed_from_row(c.execute(_INSERT_FAILED, values).fetchall()[0])

        failed: FailedJob | None = await self._write(work)
        return failed

    async def recover_leases(self) -> int:
        sql = "UPDATE jobs SET claimed_by = NULL, lease_until = NULL WHERE claimed_by IS NOT NULL"
        count: int = await self._write(lambda c: c.execute(sql).rowcount)
        return count

    async def exhausted(self, now: float) -> list[Job]:
        jobs: list[Job] = await self._read(
            lambda c: [codec.job_from_row(row) for row in c.execute(_EXHAUSTED, (now,))]
        )
        return jobs

    async def next_wakeup(self, now: float, paused_keys: Collection[str] = ()) -> float | None:
        queries: list[tuple[str, tuple[object, ...]]] = [(_NEXT_DUE, (now,)), (_NEXT_LEASE_END, (now,))]
        if paused_keys:
            paused = codec.dump_json(sorted(paused_keys))
            queries = [(_NEXT_DUE_UNPAUSED, (now, paused)), (_NEXT_LEASE_END_UNPAUSED, (now, paused))]

        def work(c: sqlite3.Connection) -> float | None:
            return min((row[0] for sql, params in queries for row in c.execute(sql, params)), default=None)

        wakeup: float | None = await self._read(work)
        return wakeup

    async def counts(self) -> QueueCounts:
        def work(c: sqlite3.Connection) -> QueueCounts:
            total, running = c.execute("SELECT count(*), count(claimed_by) FROM jobs").fetchone()
            (failed,) = c.execute("SELECT count(*) FROM failed_jobs").fetchone()
            return QueueCounts(waiting=total - running, running=running, failed=failed)

        counts: QueueCounts = await self._read(work)
        return counts

    async def waiting_for_owner(self, owner_id: int) -> int:
        count: int = await self._read(lambda c: c.execute(_COUNT_FOR_OWNER, (owner_id,)).fetchone()[0])
        return count

    async def list_jobs(self, limit: int = 100) -> list[Job]:
        jobs: list[Job] = await self._read(
            lambda c: [codec.job_from_row(row) for row in c.execute(_LIST_JOBS, (limit,))]
        )
        return jobs

    async def list_failed(self, limit: int = 100) -> list[FailedJob]:
        failed: list[FailedJob] = await self._read(
            lambda c: [codec.failed_from_row(row) for row in c.execute(_LIST_FAILED, (limit,))]
        )
        return failed

    async def retry_failed(self, failed_ids: Sequence[int] | None, now: float) -> list[int]:
        params: tuple[object, ...] = ()
        if failed_ids is None:
            select = _FAILED_TO_RETRY_ALL
        else:
            select, params = _FAILED_TO_RETRY_SOME, (codec.dump_json([int(i) for i in failed_ids]),)

        def work(c: sqlite3.Connection) -> list[int]:
            new_ids = []
            for failed_id, name, payload, max_attempts, key, owner in c.execute(select, params).fetchall():
                c.execute("DELETE FROM failed_jobs WHERE id = ?", (failed_id,))
                job = NewJob(name, {}, max_attempts, now, key, owner)
                new_ids.append(_insert_job(c, job, payload, now))
            return new_ids

        new_ids: list[int] = await self._write(work)
        return new_ids

    async def purge_failed(self) -> int:
        count: int = await self._write(lambda c: c.execute("DELETE FROM failed_jobs").rowcount)
        return count

    # PendingStore ----------------------------------------------------------------------

    async def park(self, request: PendingRequest) -> None:
        params = codec.pending_params(request)
        await self._write(lambda c: c.execute(_PARK, params))

    async def pending(self, pending_id: str) -> PendingRequest | None:
        def work(c: sqlite3.Connection) -> PendingRequest | None:
            row = c.execute(_PENDING, (pending_id,)).fetchone()
            return None if row is None else codec.pending_from_row(row)

        request: PendingRequest | None = await self._read(work)
        return request

    async def adopt(self, pending_id: str, now: float) -> int | None:
        def work(c: sqlite3.Connection) -> int | None:
            taken = c.execute(_ADOPT, (pending_id,)).fetchall()
            if not taken:
                return None
            name, payload, max_attempts, available_at, key, owner = taken[0]
            return _insert_job(c, NewJob(name, {}, max_attempts, available_at, key, owner), payload, now)

        job_id: int | None = await self._write(work)
        return job_id

    async def cancel(self, pending_id: str, user_id: int) -> CancelOutcome:
        def work(c: sqlite3.Connection) -> CancelOutcome:
            row = c.execute("SELECT user_id FROM pending WHERE id = ?", (pending_id,)).fetchone()
            if row is None:
                return CancelOutcome.GONE
            if row[0] != user_id:
                return CancelOutcome.NOT_REQUESTER
            c.execute("DELETE FROM pending WHERE id = ?", (pending_id,))
            return CancelOutcome.CANCELLED

        outcome: CancelOutcome = await self._write(work)
        return outcome

    async def expire(self, created_before: float) -> list[PendingRequest]:
        def work(c: sqlite3.Connection) -> list[PendingRequest]:
            expired = [codec.pending_from_row(row) for row in c.execute(_EXPIRE, (created_before,))]
            return sorted(expired, key=lambda r: (r.created_at, r.id))

        expired: list[PendingRequest] = await self._write(work)
        return expired

    async def pinned_keys(self) -> set[str]:
        keys: set[str] = await self._read(lambda c: {row[0] for row in c.execute(_PINNED)})
        return keys

    # BlobIndex -------------------------------------------------------------------------

    async def blob(self, key: str) -> BlobRecord | None:
        def work(c: sqlite3.Connection) -> BlobRecord | None:
            row = c.execute(_BLOB, (key,)).fetchone()
            return None if row is None else codec.blob_from_row(row)

        record: BlobRecord | None = await self._read(work)
        return record

    async def put_blob(self, record: BlobRecord) -> None:
        params = codec.blob_params(record)
        await self._write(lambda c: c.execute(_PUT_BLOB, params))

    async def set_file_id(self, key: str, file_id: str, file_unique_id: str, now: float) -> None:
        sql = "UPDATE blobs SET file_id = ?, file_unique_id = ?, last_used = ? WHERE key = ?"
        await self._write(lambda c: c.execute(sql, (file_id, file_unique_id, now, key)))

    async def clear_file_id(self, key: str) -> None:
        sql = "UPDATE blobs SET file_id = NULL, file_unique_id = NULL WHERE key = ?"
        await self._write(lambda c: c.execute(sql, (key,)))

    async def touch_blob(self, key: str, now: float) -> None:
        await self._write(lambda c: c.execute("UPDATE blobs SET last_used = ? WHERE key = ?", (now, key)))

    async def detach_bytes(self, key: str, file_name: str) -> bool:
        def work(c: sqlite3.Connection) -> bool:
            row = c.execute("SELECT file_name, file_id FROM blobs WHERE key = ?", (key,)).fetchone()
            if row is None or row[0] != file_name:
                return False
            if c.execute(_PINNED_BY_PENDING, (key,)).fetchone():
                return False
            if row[1] is None:
                c.execute("DELETE FROM blobs WHERE key = ?", (key,))
            else:
                c.execute("UPDATE blobs SET file_name = NULL, size = NULL WHERE key = ?", (key,))
            return True

        detached: bool = await self._write(work)
        return detached

    async def forget_blob(self, key: str) -> None:
        await self._write(lambda c: c.execute("DELETE FROM blobs WHERE key = ?", (key,)))

    async def all_blobs(self) -> list[BlobRecord]:
        records: list[BlobRecord] = await self._read(
            lambda c: [codec.blob_from_row(row) for row in c.execute(_ALL_BLOBS)]
        )
        return records

    # InfoCache -------------------------------------------------------------------------

    async def cached_info(self, url: str, fresh_after: float) -> list[VideoInfo] | None:
        def work(c: sqlite3.Connection) -> list[VideoInfo] | None:
            sql = "SELECT entries, canonical, created_at FROM video_info WHERE url = ?"
            row = c.execute(sql, (url,)).fetchone()
            if row is None or row[2] < fresh_after:
                return None
            try:
                codec.load_urls(row[1])
                return codec.load_entries(row[0])
            except codec.CorruptEntry:
                c.execute("DELETE FROM video_info WHERE url = ?", (url,))
                return None

        entries: list[VideoInfo] | None = await self._write(work)
        return entries

    async def cache_info(self, urls: Sequence[str], entries: Sequence[VideoInfo], now: float) -> None:
        canonical = sorted({e.webpage_url for e in entries if e.webpage_url})
        stored, aliases = codec.dump_entries(entries), codec.dump_json(canonical)
        rows = [(url, stored, aliases, now) for url in sorted({*urls, *canonical})]
        await self._write(lambda c: c.executemany(_CACHE_INFO, rows))

    async def evict_info(self, url: str) -> None:
        await self._write(lambda c: c.execute(_EVICT_INFO, {"url": url}))

    async def sweep_info(self, created_before: float) -> int:
        count: int = await self._write(lambda c: c.execute(_SWEEP_INFO, (created_before,)).rowcount)
        return count

    # HandledUrls -----------------------------------------------------------------------

    async def remember_message(self, chat_id: int, message_id: int, now: float) -> None:
        await self._write(lambda c: c.execute(_REMEMBER_MESSAGE, (chat_id, message_id, now)))

    async def knows_message(self, chat_id: int, message_id: int) -> bool:
        found: bool = await self._read(
            lambda c: c.execute(_KNOWS_MESSAGE, (chat_id, message_id)).fetchone() is not None
        )
        return found

    async def forget_handled(self, chat_id: int, message_id: int, url: str) -> None:
        sql = "DELETE FROM handled_urls WHERE chat_id = ? AND message_id = ? AND url = ?"
        await self._write(lambda c: c.execute(sql, (chat_id, message_id, url)))

    async def sweep_handled(self, created_before: float) -> int:
        count: int = await self._write(lambda c: c.execute(_SWEEP_HANDLED, (created_before,)).rowcount)
        return count

    # InstallSecrets --------------------------------------------------------------------

    async def install_secret(self, name: str, candidate: bytes) -> bytes:
        def work(c: sqlite3.Connection) -> bytes:
            c.execute(_KEEP_FIRST_CANDIDATE, (name, candidate))
            return bytes(c.execute(_STORED_VALUE, (name,)).fetchone()[0])

        secret: bytes = await self._write(work)
        return secret


def _insert_job(c: sqlite3.Connection, job: NewJob, payload: str, now: float) -> int:
    """Insert `job` with its payload already encoded; available_at 0 means "now"."""
    available_at = job.available_at or now
    values = (job.name, payload, job.max_attempts, available_at, job.key, job.owner_id, now)
    job_id = c.execute(_INSERT_JOB, values).lastrowid
    if job_id is None:  # pragma: no cover - an INSERT into a rowid table always has one
        raise sqlite3.InternalError("INSERT INTO jobs returned no rowid")
    return job_id


def _owner_only(path: Path) -> None:
    """The file holds the install's signing secret: only its owner may read it. SQLite gives the
    -wal and -shm files the main file's mode, so creating that one right is enough."""
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
    mode = path.stat().st_mode & 0o777
    if mode & 0o077:
        # Another user's file (a shared volume) stays as its owner made it.
        with contextlib.suppress(PermissionError):
            os.chmod(path, mode & 0o700)


def _prepare(connection: sqlite3.Connection, *, synchronous: str, busy_ms: int) -> None:
    # Both PRAGMA values were validated by the caller (PRAGMA takes no bound parameters).
    connection.execute(f"PRAGMA busy_timeout = {busy_ms:d}")
    mode = connection.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    if str(mode).lower() != "wal":
        raise sqlite3.OperationalError(f"cannot switch to WAL (journal_mode is {mode})")
    connection.execute(f"PRAGMA synchronous = {synchronous}")
    connection.execute("PRAGMA foreign_keys = ON")
