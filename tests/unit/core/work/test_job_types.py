"""The app's job types and the periodic jobs among them."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from returns.result import Failure, Success

from core.jobs.context import JobContext
from core.jobs.registry import JobType
from core.updater_status import UpdateStatus
from core.work.job_types import UPDATE_TIMEOUT_SECONDS, job_types
from core.work.periodic import (
    HANDLED_UPDATE_TTL_SECONDS,
    SWEEP_INTERVAL_SECONDS,
    SweepBlobs,
    SweepCaches,
    UpdateYtDlp,
)
from ports.inbox import RawUpdate
from ports.jobs import Job, NewJob
from ports.media import UpdateOutcome, Updater
from ports.pending import PendingRequest
from tests.support.clock import VirtualClock
from tests.support.world import World

DOWNLOAD_TIMEOUT = 900.0


class ScriptedUpdater(Updater):
    def __init__(self, *outcomes: UpdateOutcome) -> None:
        self._outcomes = list(outcomes)
        self.avoided: list[list[str]] = []

    async def update(self, avoid: Collection[str] = ()) -> UpdateOutcome:
        self.avoided.append(list(avoid))
        return self._outcomes.pop(0)

    async def current_version(self) -> str | None:
        return "2025.1.1"


class Closes:
    def __init__(self) -> None:
        self.count = 0

    def __call__(self) -> None:
        self.count += 1


@dataclass
class Periodic:
    """The periodic jobs over the world's services, and the updater's status they write."""

    update: UpdateYtDlp | None
    sweep_blobs: SweepBlobs
    sweep_caches: SweepCaches
    update_status: UpdateStatus


async def followed() -> list[str]:
    """The versions rolled back, as the release watch names them after leaving the one in use."""
    return ["2025.1.5"]


def periodic_of(world: World, updater: Updater | None, interval: float, closes: Closes) -> Periodic:
    status = UpdateStatus()
    update = (
        UpdateYtDlp(
            updater=updater,
            interval_seconds=interval,
            on_updated=closes,
            follow_rollbacks=followed,
            status=status,
            clock=world.clock,
        )
        if updater is not None
        else None
    )
    sweep_caches = SweepCaches(
        info=world.container.info(),
        handled=world.store,
        inbox=world.store,
        expire_prompts=world.confirmations.expire,
        clock=world.clock,
    )
    return Periodic(update, SweepBlobs(world.container.blobs()), sweep_caches, status)


def types_of(world: World, periodic: Periodic, *, inline: bool = False) -> list[JobType]:
    return job_types(
        download=world.container.download(),
        inline=world.container.download_inline() if inline else None,
        update=periodic.update,
        sweep_blobs=periodic.sweep_blobs,
        sweep_caches=periodic.sweep_caches,
        download_timeout=DOWNLOAD_TIMEOUT,
        refusals=world.container.site_refusals(),
        releases=None,
    )


def only(world: World, periodic: Periodic, name: str) -> JobType:
    [job_type] = [t for t in types_of(world, periodic) if t.name == name]
    return job_type


def context(world: World, name: str) -> JobContext:
    async def save(_: object) -> None:
        pass

    now = world.clock.now()
    return JobContext(Job(1, name, {}, 1, 3, now, now), save, world.engine)


def test_every_type_is_listed_with_the_inline_job_and_the_updater(
    clock: VirtualClock, tmp_path: Path
) -> None:
    world = World(clock, tmp_path)
    periodic = periodic_of(world, ScriptedUpdater(), 300.0, Closes())

    types = types_of(world, periodic, inline=True)

    assert [(t.name, t.timeout_seconds, t.interval_seconds) for t in types] == [
        ("download_video", DOWNLOAD_TIMEOUT, None),
        ("sweep_blobs", 900.0, SWEEP_INTERVAL_SECONDS),
        ("sweep_caches", 900.0, SWEEP_INTERVAL_SECONDS),
        ("download_inline", DOWNLOAD_TIMEOUT, None),
        ("update_ytdlp", UPDATE_TIMEOUT_SECONDS, 300.0),
    ]
    [download] = [t for t in types if t.name == "download_video"]
    assert download.on_retry is not None
    assert download.on_dead is not None


def test_without_a_cache_chat_or_an_update_interval_those_jobs_do_not_exist(
    clock: VirtualClock, tmp_path: Path
) -> None:
    world = World(clock, tmp_path)
    no_interval = periodic_of(world, ScriptedUpdater(), 0.0, Closes())
    no_updater = periodic_of(world, None, 300.0, Closes())

    for periodic in (no_interval, no_updater):
        names = [t.name for t in types_of(world, periodic)]
        assert names == ["download_video", "sweep_blobs", "sweep_caches"]


async def test_an_update_that_changed_yt_dlp_closes_the_breakers_and_says_so_in_status(
    clock: VirtualClock, tmp_path: Path
) -> None:
    world = World(clock, tmp_path)
    closes = Closes()
    updater = ScriptedUpdater(UpdateOutcome(True, "2025.1.1", "2025.2.2"))
    periodic = periodic_of(world, updater, 300.0, closes)
    update = only(world, periodic, "update_ytdlp")

    assert isinstance(await update.run(context(world, "update_ytdlp")), Success)

    assert updater.avoided == [["2025.1.5"]]  # a release rolled back is not installed again

    assert closes.count == 1
    assert (periodic.update_status.version, periodic.update_status.error) == ("2025.2.2", None)
    assert periodic.update_status.checked_at == clock.now()


async def test_a_failed_update_keeps_the_version_fails_the_run_and_closes_nothing(
    clock: VirtualClock, tmp_path: Path
) -> None:
    world = World(clock, tmp_path)
    closes = Closes()
    failed = UpdateOutcome(False, "2025.1.1", "2025.1.1", error="index unreachable")
    periodic = periodic_of(world, ScriptedUpdater(failed), 300.0, closes)
    update = only(world, periodic, "update_ytdlp")

    outcome = await update.run(context(world, "update_ytdlp"))

    assert isinstance(outcome, Failure)
    assert outcome.failure().reason == "yt-dlp update failed, keeping 2025.1.1: index unreachable"
    assert closes.count == 0
    assert periodic.update_status.error == "index unreachable"
    assert periodic.update_status.describe().endswith("(failed: index unreachable)")


async def test_the_cache_sweep_expires_unanswered_prompts(clock: VirtualClock, tmp_path: Path) -> None:
    world = World(clock, tmp_path)
    periodic = periodic_of(world, None, 0.0, Closes())
    sweep = only(world, periodic, "sweep_caches")
    job = NewJob("download_video", {}, 3)
    await world.store.park(PendingRequest("p1", -1, 1, 1, job, None, clock.now()))
    await clock.advance(7 * 3600)

    assert isinstance(await sweep.run(context(world, "sweep_caches")), Success)

    assert await world.store.pending("p1") is None


async def test_the_cache_sweep_forgets_updates_handled_two_days_ago_and_keeps_the_waiting_ones(
    clock: VirtualClock, tmp_path: Path
) -> None:
    world = World(clock, tmp_path)
    sweep = only(world, periodic_of(world, None, 0.0, Closes()), "sweep_caches")
    await world.store.keep_updates([RawUpdate(1, "chat:1", "{}"), RawUpdate(2, "chat:1", "{}")], clock.now())
    await world.store.update_handled(1, clock.now())
    await clock.advance(HANDLED_UPDATE_TTL_SECONDS + 1)

    assert isinstance(await sweep.run(context(world, "sweep_caches")), Success)

    assert [k.update.update_id for k in await world.store.waiting_updates()] == [2]
    assert [
        k.update.update_id
        for k in await world.store.keep_updates([RawUpdate(1, "chat:1", "{}")], clock.now())
    ] == [1]
