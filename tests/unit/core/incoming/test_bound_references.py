"""Every reference an update makes is checked against what the bot made: presses against the
prompt they were signed for, chosen inline results against what was offered, edits against the
messages the bot read. Over the real wiring (the container) with a fake chat and virtual time."""

from __future__ import annotations

import pytest

from adapters.memory.store import MemoryStore
from core.chat_settings.who_may_change import SettingsAccess
from core.incoming.inline import url_in
from core.incoming.intake.message import IncomingMessage
from core.requests.inline import InlineRequest
from core.trust.buttons import Press
from core.trust.inline_offers import OFFER_TTL_SECONDS
from core.trust.keys import InstallKeys
from core.urls import Entity
from ports.jobs import Job
from ports.messenger import MessengerError
from tests.support.clock import VirtualClock
from tests.support.downloader import video
from tests.support.messenger import ChatMessage
from tests.support.world import GROUP_CHAT, OTHER_USER, PRIVATE_CHAT, USER, World

URL = "https://videos.example/watch/long"
OTHER_GROUP = -4004


@pytest.fixture(autouse=True)
def long_video(built_world: World) -> None:
    """The link every test posts: a video long enough for a group to be asked first."""
    built_world.downloader.serve(URL, video(URL, duration=25 * 60))


async def prompt_in(world: World, chat_id: int, user_id: int = USER) -> ChatMessage:
    await world.post(URL, chat_id=chat_id, user_id=user_id)
    await world.idle()
    [prompt] = [m for m in world.messenger.chat(chat_id) if m.keyboard]
    return prompt


async def queued(world: World, name: str) -> list[Job]:
    return [j for j in await world.store.list_jobs() if j.name == name]


def data_of(prompt: ChatMessage) -> tuple[str, str]:
    assert prompt.keyboard is not None
    [[yes, no]] = prompt.keyboard
    assert yes.callback_data is not None
    assert no.callback_data is not None
    return yes.callback_data, no.callback_data


async def test_a_prompt_goes_out_bare_and_gets_buttons_signed_for_its_own_message(world: World) -> None:
    prompt = await prompt_in(world, GROUP_CHAT)

    assert world.messenger.calls[-2:] == ["send_text", "edit_keyboard"]
    yes, no = data_of(prompt)
    assert yes.startswith("confirm:")
    assert no.startswith("cancel:")
    assert max(len(yes.encode()), len(no.encode())) <= 64


async def test_another_chats_signed_data_pressed_here_changes_nothing_anywhere(world: World) -> None:
    here = await prompt_in(world, GROUP_CHAT)
    there = await prompt_in(world, OTHER_GROUP, user_id=OTHER_USER)
    their_yes, their_no = data_of(there)
    our_yes, _ = data_of(here)

    decisions = [
        await world.confirmations.press(Press(data, GROUP_CHAT, here.message_id, OTHER_USER))
        for data in (their_yes, their_no)
    ]
    # Our own data pressed under another of our messages, and data with no message at all.
    decisions.append(await world.confirmations.press(Press(our_yes, GROUP_CHAT, here.message_id + 1, USER)))
    decisions.append(await world.confirmations.press(Press(our_yes, None, None, USER)))

    assert [d.value for d in decisions] == ["invalid"] * 4
    for data in (our_yes, their_yes):
        assert await world.store.pending(data.split(":")[1]) is not None
    assert await queued(world, "download_video") == []
    confirmed = await world.confirmations.press(Press(our_yes, GROUP_CHAT, here.message_id, OTHER_USER))
    assert confirmed.value == "confirmed"
    await world.idle()
    assert [m.video for m in world.messenger.chat(OTHER_GROUP) if m.video] == []
    assert len([m.video for m in world.messenger.chat(GROUP_CHAT) if m.video]) == 1


async def test_a_prompt_whose_buttons_could_not_be_added_is_removed_and_asked_again(world: World) -> None:
    world.messenger.fail_next("edit_keyboard", MessengerError("Internal Server Error", 500))

    prompt = await prompt_in(world, GROUP_CHAT)

    assert world.messenger.calls.count("send_text") == 2
    assert "delete_message" in world.messenger.calls
    assert [m.message_id for m in world.messenger.chat(GROUP_CHAT)] == [prompt.message_id]
    parked = await world.store.expire(float("inf"))
    assert len(parked) == 1  # the unanswerable first one did not linger


async def test_the_install_secret_is_made_once_and_shared_by_every_process_on_the_store() -> None:
    store = MemoryStore()
    made: list[int] = []

    def token_bytes(n: int) -> bytes:
        made.append(n)
        return bytes([len(made)]) * n

    first, second = InstallKeys(store, token_bytes), InstallKeys(store, token_bytes)

    assert await first.key("callback_data") == await second.key("callback_data")
    assert await first.key("callback_data") != await first.key("inline_result")
    assert await store.install_secret("signing", b"late") == bytes([1]) * 32
    assert made == [32, 32]  # the second process's candidate was not kept


def edit(text: str, message_id: int, *, edited: bool = True) -> IncomingMessage:
    start = text.index("https://")
    entities = [Entity("url", start, len(text) - start)]
    return IncomingMessage(PRIVATE_CHAT, "private", message_id, USER, text, entities, edited=edited)


async def test_an_edit_of_a_message_the_bot_never_read_runs_nothing(world: World) -> None:
    report = await world.intake.accept(edit("now https://videos.example/a", message_id=77))

    assert report.accepted == []
    assert await queued(world, "download_video") == []


async def test_an_edit_of_a_message_the_bot_read_runs_its_new_links(world: World) -> None:
    await world.intake.accept(edit("see https://internal.test/x", message_id=78, edited=False))

    report = await world.intake.accept(edit("see https://videos.example/a", message_id=78))

    assert report.accepted == ["https://videos.example/a"]


async def test_a_chosen_result_queues_work_only_when_it_was_offered_to_that_user(
    world: World, clock: VirtualClock
) -> None:
    inline = world.container.inline_requests()
    query = "https://videos.example/watch/1"
    offered = await inline.result_id(USER, query, "no_caption", cached=False)
    cached = await inline.result_id(USER, query, "full", cached=True)

    refused = [
        await inline.choose(query, "inline-1", USER, "full"),  # an id the bot never issued
        await inline.choose(query, "inline-1", OTHER_USER, offered),  # offered to somebody else
        await inline.choose("https://videos.example/other", "inline-1", USER, offered),
        await inline.choose(query, "inline-1", USER, cached),  # already the video: nothing to do
        await inline.choose(query, None, USER, offered),
    ]
    assert refused == [False] * 5
    assert await queued(world, "download_inline") == []

    assert await inline.choose(query, "inline-1", USER, offered)
    [job] = await queued(world, "download_inline")
    assert InlineRequest.from_payload(job.payload) == InlineRequest(query, "inline-1", USER, "no_caption")

    await clock.advance(OFFER_TTL_SECONDS + 1)
    assert not await inline.choose(query, "inline-2", USER, offered)


BASIC_GROUP, ITS_SUPERGROUP = -5005, -1005005005005


async def post_in(world: World, chat_id: int, chat_type: str, url: str) -> None:
    text = f"see {url}"
    entities = [Entity("url", 4, len(url))]
    await world.intake.accept(IncomingMessage(chat_id, chat_type, 3, USER, text, entities))


@pytest.mark.parametrize(
    ("chat_id", "chat_type", "moved_to", "followed"),
    [
        (BASIC_GROUP, "group", ITS_SUPERGROUP, True),
        (BASIC_GROUP, "group", PRIVATE_CHAT, False),  # a "migration" into somebody's private chat
        (BASIC_GROUP, "group", -6006, False),  # into another basic group
        (-1001234567890, "supergroup", ITS_SUPERGROUP, False),  # supergroups never migrate
        (PRIVATE_CHAT, "private", ITS_SUPERGROUP, False),
    ],
)
async def test_a_job_follows_a_migration_only_from_a_group_to_a_supergroup(
    world: World, chat_id: int, chat_type: str, moved_to: int, followed: bool
) -> None:
    short = "https://videos.example/watch/short"
    world.downloader.serve(short)
    error = MessengerError("Bad Request: group chat was upgraded to a supergroup chat", 400)
    error.migrate_to_chat_id = moved_to
    world.messenger.fail_next("send_video", error)

    await post_in(world, chat_id, chat_type, short)
    await world.idle()

    sent_to = {m.chat_id for m in world.messenger.messages.values() if m.video}
    assert sent_to == ({moved_to} if followed else set())


@pytest.mark.parametrize(
    ("chat_id", "chat_type", "user_id", "status", "sender_chat", "allowed"),
    [
        (PRIVATE_CHAT, "private", PRIVATE_CHAT, None, None, True),
        (PRIVATE_CHAT, "private", OTHER_USER, None, None, False),  # a private chat is its user's only
        (GROUP_CHAT, "supergroup", USER, "administrator", None, True),
        (GROUP_CHAT, "group", USER, "creator", None, True),
        (GROUP_CHAT, "supergroup", USER, "member", None, False),
        (GROUP_CHAT, "supergroup", USER, "restricted", None, False),
        (GROUP_CHAT, "supergroup", USER, "left", None, False),
        (GROUP_CHAT, "supergroup", 1087968824, "member", GROUP_CHAT, True),  # an anonymous admin
        (GROUP_CHAT, "supergroup", USER, "member", OTHER_GROUP, False),  # a channel writing in
        (GROUP_CHAT, "channel", USER, "administrator", None, False),
    ],
)
async def test_only_the_user_of_a_private_chat_or_a_groups_administrators_change_settings(
    world: World,
    chat_id: int,
    chat_type: str,
    user_id: int,
    status: str | None,
    sender_chat: int | None,
    allowed: bool,
) -> None:
    if status is not None:
        world.messenger.statuses[(chat_id, user_id)] = status
    access = SettingsAccess(world.messenger)

    assert await access.may_change(chat_id, chat_type, user_id, sender_chat_id=sender_chat) is allowed


async def test_a_settings_tap_whose_status_cannot_be_read_is_refused(world: World) -> None:
    world.messenger.statuses[(GROUP_CHAT, USER)] = "administrator"
    world.messenger.fail_next("member_status", MessengerError("Bad Request: chat not found", 400))

    assert not await SettingsAccess(world.messenger).may_change(GROUP_CHAT, "supergroup", USER)


@pytest.mark.parametrize(
    ("query", "url"),
    [
        ("https://videos.example/watch/1", "https://videos.example/watch/1"),
        ("videos.example/watch/1", "https://videos.example/watch/1"),
        ("  http://пример.рф/видео  ", "http://пример.рф/видео"),
        ("http://[2001:db8::1]/v", "http://[2001:db8::1]/v"),
        ("http://192.0.2.7/v", "http://192.0.2.7/v"),
        ("\x00", None),
        ("֑͓", None),  # combining marks alone
        ("cats", None),  # a word, not a host
        ("two words", None),
        ("https://videos.example/\udcff", "https://videos.example/\ufffd"),  # as Telegram would show it
        ("ftp://videos.example/x", None),
        ("https://bad..example/x", None),
        ("https://:80/x", None),
        ("", None),
    ],
)
def test_an_inline_query_is_a_link_only_when_it_looks_like_one(query: str, url: str | None) -> None:
    assert url_in(query) == url
