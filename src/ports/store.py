"""All the store ports as one unit: one adapter serves them from one database, so an operation
that spans two of them (enqueue with a handled-URL guard, adopt a pending request) is one
transaction."""

from __future__ import annotations

from typing import Protocol

from ports.blobs import BlobIndex
from ports.caches import HandledUrls, InfoCache
from ports.jobs import JobStore
from ports.pending import PendingStore
from ports.secrets import InstallSecrets


class Store(JobStore, PendingStore, BlobIndex, InfoCache, HandledUrls, InstallSecrets, Protocol):
    async def close(self) -> None: ...
