"""Every store port on one embedded SQLite file (WAL, group commit), with the memory store's
semantics: one class per port (jobs, failed_jobs, pending, blobs, caches, secrets,
chat_settings, inbox, the yt-dlp record) over one writer; work notices from other processes
(`vidrelay jobs retry`) through the file's data_version."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Final

from adapters.sqlite.blobs import SqliteBlobIndex
from adapters.sqlite.caches import SqliteHandledUrls, SqliteInfoCache
from adapters.sqlite.cancels import SqliteJobCancels
from adapters.sqlite.chat_settings import SqliteChatSettings
from adapters.sqlite.connection import SYNCHRONOUS_LEVELS, FileSettings, SqliteConnection
from adapters.sqlite.held_back import SqliteHeldBackJobs
from adapters.sqlite.inbox import SqliteInbox
from adapters.sqlite.jobs import SqliteJobQueue
from adapters.sqlite.notices import ForeignCommits
from adapters.sqlite.opening import check_and_migrate
from adapters.sqlite.pending import SqlitePending
from adapters.sqlite.queue_view import SqliteQueueView
from adapters.sqlite.quota import SqliteUserQuota
from adapters.sqlite.schema import MIGRATIONS, Migration
from adapters.sqlite.secrets import SqliteInstallSecrets
from adapters.sqlite.transaction import DRIVER_ERRORS
from adapters.sqlite.writer import GroupCommitWriter
from adapters.sqlite.ytdlp_record import SqliteYtDlpRecord
from ports.clock import Clock
from ports.errors import StoreError, StoreRefused
from ports.notices import WorkNotices
from ports.store import Store

DEFAULT_CHECK_SECONDS: Final = 10.0
"""The open's PRAGMA quick_check of an existing file may take this long (opening.py)."""
DEFAULT_SYNCHRONOUS: Final = "FULL"
"""Every commit is on disk (fsynced) before anyone hears "done"; bench/queue_throughput.py
measures what this costs against NORMAL."""


class SqliteStore(
    SqliteJobQueue,
    SqliteJobCancels,
    SqliteQueueView,
    SqliteUserQuota,
    SqlitePending,
    SqliteBlobIndex,
    SqliteInfoCache,
    SqliteHandledUrls,
    SqliteInstallSecrets,
    SqliteChatSettings,
    SqliteInbox,
    SqliteHeldBackJobs,
    SqliteYtDlpRecord,
    Store,
    WorkNotices,
):
    def __init__(
        self,
        connection: SqliteConnection,
        writer: GroupCommitWriter,
        clock: Clock | None = None,
        *,
        fair: bool = True,
    ) -> None:
        """Use `SqliteStore.open`."""
        self._connection = connection
        self._writer = writer
        self._fair = fair
        self._closed = False
        self._foreign = ForeignCommits(self._read, clock) if clock is not None else None

    @classmethod
    async def open(
        cls,
        path: Path,
        *,
        synchronous: str = DEFAULT_SYNCHRONOUS,
        busy_timeout_seconds: float = 5.0,
        check_seconds: float = DEFAULT_CHECK_SECONDS,
        migrations: Sequence[Migration] = MIGRATIONS,
        connection_class: type[sqlite3.Connection] = sqlite3.Connection,
        clock: Clock | None = None,
        fair: bool = True,
    ) -> SqliteStore:
        """Open (creating if needed) and migrate the file at `path`. `clock`: the timer of the
        watch for other processes' commits (`on_work`); a store without one offers no notices.
        `fair` False: claims go first-in, first-out instead of in the fair order (see ports.queue;
        a comparison).

        StoreRefused when the file is not ours to touch or is damaged (then it is left as it
        was); StoreError when it cannot be opened now. `check_seconds` bounds the damage check."""
        level = synchronous.upper()
        if level not in SYNCHRONOUS_LEVELS:
            raise ValueError(f"synchronous must be one of {SYNCHRONOUS_LEVELS}, not {synchronous!r}")
        settings = FileSettings(path, level, busy_timeout_seconds, connection_class, check_seconds)
        connection = SqliteConnection(settings)
        try:
            await connection.start(partial(check_and_migrate, settings, migrations))
        except StoreRefused:
            raise
        except (*DRIVER_ERRORS, OSError) as error:
            raise StoreError(f"cannot open the SQLite file {path}: {error}") from error
        writer = GroupCommitWriter(connection)
        writer.start()
        return cls(connection, writer, clock, fair=fair)

    def on_work(self, wake: Callable[[], None]) -> None:
        if self._foreign is None:
            raise RuntimeError("this SQLite store was opened without a clock: it cannot watch the file")
        self._foreign.subscribe(wake)

    async def close(self) -> None:
        """Finish the operations already submitted, then close the file."""
        if self._closed:
            return
        self._closed = True
        if self._foreign is not None:
            await self._foreign.close()
        await self._writer.close()
        await self._connection.close()

    @property
    def transactions(self) -> int:
        """Transactions (group commits) run so far."""
        return self._writer.transactions
