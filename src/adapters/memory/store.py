"""Every store port in process memory, for development and fast tests: one class per port
(jobs, failed_jobs, pending, blobs, caches, secrets, chat_settings, inbox, the yt-dlp record)
over one set of tables."""

from __future__ import annotations

from adapters.memory.blobs import MemoryBlobIndex
from adapters.memory.caches import MemoryHandledUrls, MemoryInfoCache
from adapters.memory.cancels import MemoryJobCancels
from adapters.memory.chat_settings import MemoryChatSettings
from adapters.memory.held_back import MemoryHeldBackJobs
from adapters.memory.inbox import MemoryInbox
from adapters.memory.jobs import MemoryJobQueue
from adapters.memory.pending import MemoryPending
from adapters.memory.queue_view import MemoryQueueView
from adapters.memory.quota import MemoryUserQuota
from adapters.memory.secrets import MemoryInstallSecrets
from adapters.memory.tables import MemoryTables
from adapters.memory.ytdlp_record import MemoryYtDlpRecord
from ports.store import Store


class MemoryStore(
    MemoryJobQueue,
    MemoryJobCancels,
    MemoryQueueView,
    MemoryUserQuota,
    MemoryPending,
    MemoryBlobIndex,
    MemoryInfoCache,
    MemoryHandledUrls,
    MemoryInstallSecrets,
    MemoryChatSettings,
    MemoryInbox,
    MemoryHeldBackJobs,
    MemoryYtDlpRecord,
    Store,
):
    def __init__(self, *, fair: bool = True) -> None:
        """`fair` False: claims go first-in, first-out instead of in the fair order (ports.queue)."""
        self._tables = MemoryTables(fair=fair)

    async def close(self) -> None:
        return None
