"""All the store ports as one unit: one adapter serves them from one database, so an operation
that spans two of them (enqueue with a handled-URL guard, adopt a pending request) is one
transaction."""

from __future__ import annotations

from typing import Protocol

from ports.blobs import BlobIndex
from ports.caches import HandledUrls, InfoCache
from ports.cancels import JobCancels
from ports.chat_settings import ChatSettingsStore
from ports.held_back import HeldBackJobs
from ports.inbox import UpdateInbox
from ports.pending import PendingStore
from ports.queue import JobQueue
from ports.queue_view import QueueView
from ports.quota import UserQuota
from ports.secrets import InstallSecrets
from ports.ytdlp_record import YtDlpRecord


class Store(
    JobQueue,
    JobCancels,
    QueueView,
    UserQuota,
    PendingStore,
    BlobIndex,
    InfoCache,
    HandledUrls,
    InstallSecrets,
    ChatSettingsStore,
    UpdateInbox,
    HeldBackJobs,
    YtDlpRecord,
    Protocol,
):
    async def close(self) -> None: ...
