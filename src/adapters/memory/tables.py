"""The memory store's tables: plain dicts shared by the per-port classes of one MemoryStore.

Every method of those classes runs to completion without awaiting, so on one event loop every
operation is atomic — the guarantee the SQL stores get from transactions.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from ports.blobs import BlobRecord
from ports.chat_settings import ChatSettings
from ports.inbox import RawUpdate
from ports.jobs import FailedJob, Job, NewJob
from ports.media import VideoInfo
from ports.pending import PendingRequest
from ports.ytdlp_record import Rollback, Tally


@dataclass(frozen=True, slots=True)
class CachedInfo:
    entries: tuple[VideoInfo, ...]
    canonical: frozenset[str]
    created_at: float


QUICK_TURN = -1
"""A quick row's place: before the whole fair order (ports.queue)."""


@dataclass(slots=True)
class InboxRow:
    update: RawUpdate
    received_at: float
    handled_at: float | None = None


@dataclass(slots=True)
class FailedLink:
    failed_at: float
    requeued: bool = False


@dataclass
class MemoryTables:
    jobs: dict[int, Job] = field(default_factory=dict)
    failed: dict[int, FailedJob] = field(default_factory=dict)
    handled: dict[tuple[int, int, str], float] = field(default_factory=dict)
    pending: dict[str, PendingRequest] = field(default_factory=dict)
    blobs: dict[str, BlobRecord] = field(default_factory=dict)
    info: dict[str, CachedInfo] = field(default_factory=dict)
    secrets: dict[str, bytes] = field(default_factory=dict)
    chat_settings: dict[int, ChatSettings] = field(default_factory=dict)
    user_links: dict[int, list[float]] = field(default_factory=dict)
    cancel_asked: set[int] = field(default_factory=set)
    fair: bool = True
    inbox: dict[int, InboxRow] = field(default_factory=dict)
    ytdlp_tallies: dict[tuple[str, str], Tally] = field(default_factory=dict)
    ytdlp_failed_links: dict[tuple[str, str, str], FailedLink] = field(default_factory=dict)
    """(extractor, version, url) → when the link first failed, and whether its jobs were requeued."""
    ytdlp_rollbacks: dict[str, Rollback] = field(default_factory=dict)
    next_job_id: int = 1
    next_failed_id: int = 1

    def insert_job(self, job: NewJob, now: float) -> int:
        job_id = self.next_job_id
        self.next_job_id += 1
        self.jobs[job_id] = Job(
            id=job_id,
            name=job.name,
            payload=copy.deepcopy(job.payload),
            attempts=0,
            max_attempts=job.max_attempts,
            available_at=job.available_at or now,
            created_at=now,
            key=job.key,
            owner_id=job.owner_id,
            requester=job.requester,
            turn=QUICK_TURN if job.quick else self.next_turn(job.requester if self.fair else None),
        )
        return job_id

    def next_turn(self, requester: int | None) -> int:
        """The row's place in the fair order (ports.queue): after the requester's queued rows,
        never before the current turn."""
        held = [j.turn for j in self.jobs.values() if j.claimed_by is not None]
        free = [j.turn for j in self.jobs.values() if j.claimed_by is None]
        current = max(max(held) if held else min(free, default=0), 0)
        own = [j.turn for j in self.jobs.values() if requester is not None and j.requester == requester]
        return max(max(own) + 1, current) if own else current


class MemoryTablesUser:
    """Base of the per-port classes: they all work on one MemoryTables."""

    _tables: MemoryTables
