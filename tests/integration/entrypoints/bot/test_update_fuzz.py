"""A fuzzed update stream through the real dispatcher, handlers and core services.

The bot as the container builds it (memory store, scripted yt-dlp, virtual time) talks to the
fake Bot API over loopback through its real messenger; hypothesis writes the updates (see
tests/support/hostile_updates.py), fed in-process one at a time, each followed by every job it
caused. Stated as assertions, per update:
- nothing raises past the dispatcher, and no handler or job fails at all (nothing is logged at
  error level): hostile input gets a reply or silence, never a crash;
- every call that names a chat names the chat the update came from (or the inline cache chat
  for inline work, or the supergroup Telegram says that chat became);
and, after the whole stream, a valid link in a private chat is still delivered.

Derandomized with a fixed budget, so a failure reproduces; seconds, not minutes.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiogram import Bot
from dependency_injector import providers
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.system.clock import SystemClock
from adapters.telegram.flood import FloodControl
from adapters.telegram.messenger import TelegramMessenger
from adapters.telegram.session import make_bot
from entrypoints.container import Container
from testkit.telegram import DEFAULT_TOKEN, CallRecord, Chat, FakeBotApi, User
from tests.support.clock import VirtualClock
from tests.support.downloader import video
from tests.support.hostile_updates import ADMIN, LONG, SHORT, UPDATE_KINDS, Stream, UpdateMade
from tests.support.pacing import UNPACED
from tests.support.world import faked_container

EXAMPLES = 100
UPDATES_PER_EXAMPLE = st.integers(16, 30)
MIN_UPDATES = 2000
INLINE_CACHE = Chat.supergroup(-1009999000001, "Inline cache")
ENV = {
    "VIDRELAY_ADMIN_USER_IDS": str(ADMIN.id),
    "VIDRELAY_INLINE_CACHE_CHAT_ID": str(INLINE_CACHE.id),
    "VIDRELAY_YTDLP_UPDATE_INTERVAL_SECONDS": "0",
    "VIDRELAY_YTDLP_TIMEOUT_SECONDS": "60",
}
LAST_USER = User(999_000_001, "Last")


class Failures(logging.Handler):
    """What says a handler or a job broke, from any logger: a logged exception, or a job that
    failed with an internal error (the engine's word for a bug) or hung until its deadline.
    A link that is not a video failing for good is an outcome, not one of these."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if record.exc_info or "internal error" in text or "Timed out after" in text:
            self.records.append(record)


@pytest.fixture
def failures() -> Iterator[Failures]:
    """Thousands of updates make tens of thousands of info lines: only warnings and worse are
    kept (and looked at), so the run stays fast."""
    handler = Failures()
    root = logging.getLogger()
    quieted = [logging.getLogger(name) for name in ("vidrelay", "aiogram")]
    levels = [logger.level for logger in quieted]
    root.addHandler(handler)
    for logger in quieted:
        logger.setLevel(logging.WARNING)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        for logger, level in zip(quieted, levels, strict=True):
            logger.setLevel(level)


def test_a_hostile_update_stream_is_contained_kept_to_its_chats_and_the_bot_still_delivers(
    tmp_path: Path, failures: Failures
) -> None:
    loop = asyncio.new_event_loop()
    api = FakeBotApi()
    loop.run_until_complete(api.start())
    bot = make_bot(DEFAULT_TOKEN, api.base_url, False, flood=FloodControl(SystemClock(), UNPACED))
    fed: list[str] = []
    seen: Counter[str] = Counter()
    folders = iter(range(10**6))

    @settings(
        max_examples=EXAMPLES,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.data())
    def stream(data: st.DataObject) -> None:
        folder = tmp_path / str(next(folders))
        loop.run_until_complete(run_stream(api, bot, folder, data.draw, fed, failures, seen))

    try:
        stream()
    finally:
        loop.run_until_complete(bot.session.close())
        loop.run_until_complete(api.stop())
        loop.close()

    assert len(fed) >= MIN_UPDATES
    assert set(fed) == UPDATE_KINDS
    # Not a vacuous stream: the paths that matter were taken, the genuine ones and the refused.
    assert {what for what, n in seen.items() if n} == set(OUTCOMES), seen


async def run_stream(
    api: FakeBotApi,
    bot: Bot,
    folder: Path,
    draw: st.DrawFn,
    fed: list[str],
    failures: Failures,
    seen: Counter[str],
) -> None:
    api.reset()
    api.add_chat(INLINE_CACHE)
    failures.records.clear()
    clock = VirtualClock()
    container = faked_container(clock, folder, **ENV)
    container.messenger.override(providers.Object(TelegramMessenger(bot, False)))
    downloader = container.downloader()
    downloader.serve(SHORT, video(SHORT))
    downloader.serve(LONG, video(LONG, "long", duration=25 * 60))
    engine, dispatcher = container.engine(), container.dispatcher()
    assert set(dispatcher.resolve_used_update_types()) <= UPDATE_KINDS
    await engine.start()
    try:
        world = Stream.start(api, draw)
        for _ in range(draw(UPDATES_PER_EXAMPLE)):
            for made in world.next_updates():
                await feed(api, bot, container, clock, world, made)
                fed.append(made.kind)
        count_outcomes(api, seen)
        await still_delivers(api, bot, container, clock)
    finally:
        await engine.stop(grace_seconds=0)
    assert [f"{r.name}: {r.getMessage()}" for r in failures.records] == []


async def feed(
    api: FakeBotApi, bot: Bot, container: Container, clock: VirtualClock, world: Stream, made: UpdateMade
) -> None:
    calls, answers = len(api.calls), len(api.inline_answers)
    await container.dispatcher().feed_raw_update(bot, made.raw)
    await drain(container, clock)
    world.remember_offers(made, answers)
    allowed = allowed_chats(made, world)
    strays = [c for c in api.calls[calls:] if c.chat_id is not None and c.chat_id not in allowed]
    assert strays == [], describe(made, strays)


OUTCOMES = ("prompt", "confirmed", "refused_press", "video", "inline_offer", "inline_swap", "refused_url")


def count_outcomes(api: FakeBotApi, seen: Counter[str]) -> None:
    answers = [a.text for a in api.callback_answers]
    seen["prompt"] += len([m for m in api.calls_of("editMessageReplyMarkup") if m.ok])
    seen["confirmed"] += answers.count("👍 On it!")
    seen["refused_press"] += answers.count("This button is no longer valid.")
    seen["video"] += len(api.videos()) - len(api.videos(INLINE_CACHE.id))
    seen["inline_offer"] += sum(len(a.results) for a in api.inline_answers)
    seen["inline_swap"] += len(api.media_edits)
    seen["refused_url"] += len([c for c in api.calls_of("sendMessage") if "I can't fetch" in str(c.params)])


def allowed_chats(made: UpdateMade, world: Stream) -> set[int]:
    if made.chat_id is None:
        return {INLINE_CACHE.id}
    return {made.chat_id, *([world.migrated[made.chat_id]] if made.chat_id in world.migrated else [])}


def describe(made: UpdateMade, strays: list[CallRecord]) -> str:
    return f"{made.kind} from chat {made.chat_id} wrote to {[(c.method, c.chat_id) for c in strays]}"


EDIT_INTERVAL_SECONDS = 3.0


async def drain(container: Container, clock: VirtualClock) -> None:
    """Every job the update caused, retries and backoffs included, in virtual time, and then
    the texts its log message has on their way (a job's last words may go out after its row is
    gone, paced or held back for the edit interval). A job or an edit in flight waits on the fake
    over real sockets: yield to the loop until it is done."""
    store, logs = container.store(), container.log_views()
    quiet_since = None
    worked = False
    for _ in range(20_000):
        counts = await store.counts()
        worked = worked or bool(counts.waiting + counts.running) or logs.sending
        if not worked:
            return  # no job: nothing of this update is held back
        if counts.running:
            await asyncio.sleep(0.0005)
            continue
        if counts.waiting or logs.sending:
            quiet_since = None
        elif quiet_since is None:
            quiet_since = clock.now()
        elif clock.now() - quiet_since > EDIT_INTERVAL_SECONDS:
            return
        await clock.advance(0.5)
        await asyncio.sleep(0.0005 if logs.sending else 0)
    raise AssertionError("the jobs of an update never finished")


async def still_delivers(api: FakeBotApi, bot: Bot, container: Container, clock: VirtualClock) -> None:
    link = api.send_text(Chat.private(LAST_USER), LAST_USER, f"and now {SHORT}")
    for raw in api.take_updates():
        await container.dispatcher().feed_raw_update(bot, raw)
    await drain(container, clock)
    assert [v.reply_to for v in api.videos(LAST_USER.id)] == [link]
