"""Every store port on one embedded SQLite file (WAL, group commit), with the memory store's
semantics: one class per port (jobs, failed_jobs, pending, blobs, caches, secrets,
chat_settings) over one writer."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Final

from adapters.sqlite.blobs import SqliteBlobIndex
from adapters.sqlite.caches import SqliteHandledUrls, SqliteInfoCache
from adapters.sqlite.cancels import SqliteJobCancels
from adapters.sqlite.chat_settings import SqliteChatSettings
from adapters.sqlite.connection import SYNCHRONOUS_LEVELS, FileSettings, SqliteConnection
from adapters.sqlite.jobs import SqliteJobQueue
from adapters.sqlite.opening import open_checked
from adapters.sqlite.pending import SqlitePending
from adapters.sqlite.queue_view import SqliteQueueView
from adapters.sqlite.quota import SqliteUserQuota
from adapters.sqlite.schema import MIGRATIONS, Migration
from adapters.sqlite.secrets import SqliteInstallSecrets
from adapters.sqlite.transaction import DRIVER_ERRORS
from adapters.sqlite.writer import GroupCommitWriter
from ports.errors import StoreError, StoreRefused
from ports.store import Store

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
    Store,
):
    def __init__(self, connection: SqliteConnection, writer: GroupCommitWriter, *, fair: bool = True) -> None:
        """Use `SqliteStore.open`."""
        self._connection = connection
        self._writer = writer
        self._fair = fair
        self._closed = False

    @classmethod
    async def open(
        cls,
        path: Path,
        *,
        synchronous: str = DEFAULT_SYNCHRONOUS,
        busy_timeout_seconds: float = 5.0,
        migrations: Sequence[Migration] = MIGRATIONS,
        connection_class: type[sqlite3.Connection] = sqlite3.Connection,
        fair: bool = True,
    ) -> SqliteStore:
        """Open (creating if needed) and migrate the file at `path`. `fair` False: claims go
        first-in, first-out instead of in the fair order (see ports.queue; a comparison).

        StoreRefused when the file is not ours to touch (then it is left as it was); StoreError
        when it cannot be opened now."""
        level = synchronous.upper()
        if level not in SYNCHRONOUS_LEVELS:
            raise ValueError(f"synchronous must be one of {SYNCHRONOUS_LEVELS}, not {synchronous!r}")
        settings = FileSettings(path, level, busy_timeout_seconds, connection_class)
        connection = SqliteConnection(settings)
        try:
            await connection.start(partial(open_checked, settings, migrations))
        except StoreRefused:
            raise
        except (*DRIVER_ERRORS, OSError) as error:
            raise StoreError(f"cannot open the SQLite file {path}: {error}") from error
        writer = GroupCommitWriter(connection)
        writer.start()
        return cls(connection, writer, fair=fair)

    async def close(self) -> None:
        """Finish the operations already submitted, then close the file."""
        if self._closed:
            return
        self._closed = True
        await self._writer.close()
        await self._connection.close()

    @property
    def transactions(self) -> int:
        """Transactions (group commits) run so far."""
        return self._writer.transactions
