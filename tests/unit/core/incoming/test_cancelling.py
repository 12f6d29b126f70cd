"""/cancel over in-process fakes, on virtual time: a queued link is removed, a running one stops
at once, either way its log message ends 🚫 and nothing counts it as a failure; in a group only
the sender or an admin may cancel."""

from __future__ import annotations

from core.chat_settings.who_may_change import Asker
from core.incoming.cancelling import CancelAsk, Cancellations, CancelOutcome
from core.trust.buttons import Press
from tests.support.clock import settle
from tests.support.downloader import video
from tests.support.world import GROUP_CHAT, OTHER_USER, PRIVATE_CHAT, USER, World

URL = "https://videos.example/watch/1"
CANCELLED = "🚫 <b>Cancelled</b>"


def cancellations(world: World) -> Cancellations:
    cancelling: Cancellations = world.container.cancellations()
    return cancelling


def ask(
    replied_to: int | None, *, chat: int = PRIVATE_CHAT, user: int = USER, everything: bool = False
) -> CancelAsk:
    chat_type = "private" if chat > 0 else "supergroup"
    return CancelAsk(Asker(chat, chat_type, user), replied_to, everything)


def serve_slow(world: World, n: int, seconds: float = 60.0) -> str:
    url = f"https://videos.example/watch/{n}"
    world.downloader.serve(url, video(url, f"v{n}"))
    world.downloader.slow[f"v{n}"] = seconds
    return url


async def downloading(world: World, video_id: str) -> None:
    for _ in range(20):
        if video_id in world.downloader.downloads:
            return
        await world.clock.advance(0.5)
    raise AssertionError(f"{video_id} never started downloading")


def log_of(world: World, message_id: int, chat: int = PRIVATE_CHAT) -> str:
    [log] = [m for m in world.messenger.chat(chat) if m.reply_to == message_id and m.video is None]
    return log.text or ""


async def test_a_running_link_cancelled_by_a_reply_stops_at_once_and_is_no_failure(world: World) -> None:
    message_id = await world.post(serve_slow(world, 1))
    await downloading(world, "v1")

    report = await cancellations(world).cancel(ask(message_id))
    await world.clock.advance(world.settings.heartbeat_seconds / 2)  # its 🚫 edit is due by then
    await world.idle_now()  # the staging folder goes in a thread: real time, no virtual time

    assert report.outcome is CancelOutcome.CANCELLED
    assert world.engine.in_flight == 0  # stopped without waiting for the next heartbeat
    assert log_of(world, message_id).endswith(CANCELLED)
    assert [m for m in world.messenger.chat(PRIVATE_CHAT) if m.video] == []
    assert await world.store.list_failed() == []
    assert world.engine.stats["cancelled"] == 1
    assert world.engine.stats["dead_lettered"] == 0


async def test_a_queued_link_cancelled_by_a_reply_to_the_bots_message_is_removed(world: World) -> None:
    for n in range(3):  # every worker is busy
        await world.post(serve_slow(world, n))
        await downloading(world, f"v{n}")
    queued = await world.post(serve_slow(world, 9), chat_id=PRIVATE_CHAT + 5, user_id=OTHER_USER)
    await settle()
    [bots_message] = [m for m in world.messenger.chat(PRIVATE_CHAT + 5) if m.reply_to == queued]
    assert (bots_message.text or "").startswith("⏳")

    report = await cancellations(world).cancel(
        ask(bots_message.message_id, chat=PRIVATE_CHAT + 5, user=OTHER_USER)
    )
    await world.clock.advance(5)

    assert (report.outcome, report.count) == (CancelOutcome.CANCELLED, 1)
    assert len(await world.store.list_jobs()) == 3  # the others go on
    assert log_of(world, queued, PRIVATE_CHAT + 5) == CANCELLED
    assert world.downloader.scrapes.count("https://videos.example/watch/9") == 0


async def test_cancel_all_takes_every_link_of_the_user_in_the_chat(world: World) -> None:
    for n in range(3):
        await world.post(serve_slow(world, n))
    await world.clock.advance(1)

    report = await cancellations(world).cancel(ask(None, everything=True))
    await world.idle()

    assert (report.outcome, report.count) == (CancelOutcome.CANCELLED, 3)
    assert await world.store.list_jobs() == []
    assert await world.store.list_failed() == []


async def test_in_a_group_someone_elses_cancel_is_refused_and_an_admins_is_not(world: World) -> None:
    message_id = await world.post(serve_slow(world, 1), chat_id=GROUP_CHAT, user_id=USER)
    await downloading(world, "v1")

    refused = await cancellations(world).cancel(ask(message_id, chat=GROUP_CHAT, user=OTHER_USER))
    assert refused.outcome is CancelOutcome.NOT_YOURS
    assert len(await world.store.list_jobs()) == 1

    admin = OTHER_USER + 1
    world.messenger.statuses[(GROUP_CHAT, admin)] = "administrator"
    allowed = await cancellations(world).cancel(ask(message_id, chat=GROUP_CHAT, user=admin))
    await world.idle()
    assert allowed.outcome is CancelOutcome.CANCELLED
    assert await world.store.list_jobs() == []


async def test_a_cancel_that_names_nothing_says_so_or_says_how(world: World) -> None:
    message_id = await world.post(serve_slow(world, 1, seconds=0))
    await world.idle()

    assert (await cancellations(world).cancel(ask(message_id))).outcome is CancelOutcome.NOTHING
    assert (await cancellations(world).cancel(ask(None))).outcome is CancelOutcome.HOW


async def test_the_button_under_a_private_log_message_cancels_its_job_and_goes_with_it(world: World) -> None:
    message_id = await world.post(serve_slow(world, 1))
    await downloading(world, "v1")
    await world.clock.advance(4)  # an edit of the log message since it exists
    [log] = [m for m in world.messenger.chat(PRIVATE_CHAT) if m.reply_to == message_id]
    assert log.keyboard is not None
    [[button]] = log.keyboard
    assert button.text == "🚫 Cancel"
    assert button.callback_data is not None
    elsewhere = Press(button.callback_data, PRIVATE_CHAT, log.message_id + 1, USER)
    assert await cancellations(world).press(elsewhere) is CancelOutcome.NOT_YOURS  # signed for that message

    pressed = Press(button.callback_data, PRIVATE_CHAT, log.message_id, USER)
    assert await cancellations(world).press(pressed) is CancelOutcome.CANCELLED
    await world.clock.advance(5)
    await world.idle_now()

    assert (log.text or "").endswith(CANCELLED)
    assert log.keyboard is None  # the last edit took the button away
    assert await cancellations(world).press(pressed) is CancelOutcome.NOTHING
