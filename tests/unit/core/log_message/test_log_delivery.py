"""Putting a log text into a chat: chunks within Telegram's limit, each sent once then edited,
and every refusal Telegram can answer met without failing the job."""

from __future__ import annotations

import asyncio

import pytest

from core.log_message.chunks import CONTINUED, split_html, strip_tags, utf16_length
from core.log_message.delivery import LogAddress, deliver
from core.log_message.state import LogState
from ports.messenger import MessengerError
from tests.support.clock import VirtualClock
from tests.support.messenger import EDIT_GONE, PARSE_ERROR, FakeMessenger

CHAT, USER_MESSAGE = 42, 7
TO = LogAddress(CHAT, USER_MESSAGE)


def test_short_text_is_one_chunk() -> None:
    assert split_html("🧐 <b>Scraping</b> URL...") == ["🧐 <b>Scraping</b> URL..."]


def test_long_text_splits_within_the_limit_and_marks_continuations() -> None:
    text = "\n".join(f"<b>line {n}</b> " + "x" * 50 for n in range(200))
    chunks = split_html(text, limit=1000)
    assert len(chunks) > 1
    assert all(utf16_length(c) <= 1000 for c in chunks)
    assert all(c.startswith(CONTINUED) for c in chunks[1:])
    assert strip_tags("".join(c.removeprefix(CONTINUED) for c in chunks)) == strip_tags(text)


def test_a_cut_inside_a_code_block_closes_and_reopens_the_tag() -> None:
    text = "<code>" + "y" * 3000 + "</code>"
    first, second = split_html(text, limit=1000)[:2]
    assert first.endswith("</code>")
    assert second.startswith(CONTINUED + "<code>")


def test_a_cut_never_splits_a_surrogate_pair_or_an_entity() -> None:
    text = "🎬&amp;" * 600
    for chunk in split_html(text, limit=101):
        chunk.encode("utf-8")  # a split surrogate pair would raise here
        body = chunk.removeprefix(CONTINUED)
        assert body.count("&amp;") == body.count("&")


async def test_a_changed_text_edits_the_same_message(clock: VirtualClock) -> None:
    messenger, state = FakeMessenger(), LogState()
    await deliver(messenger, clock, TO, state, "🧐 <b>Scraping</b> URL...")
    await deliver(messenger, clock, TO, state, "🧐 <b>Scraping</b> URL...")  # unchanged: no call
    await deliver(messenger, clock, TO, state, "⬇️ <b>Downloading...</b>")
    [message] = messenger.chat(CHAT)
    assert message.reply_to == USER_MESSAGE
    assert message.text == "⬇️ <b>Downloading...</b>"
    assert messenger.calls == ["send_text", "edit_text"]
    assert state.message_ids == [message.message_id]


async def test_an_unparseable_chunk_is_resent_as_plain_text(clock: VirtualClock) -> None:
    messenger = FakeMessenger()
    messenger.fail_next("send_text", MessengerError(PARSE_ERROR, 400))
    await deliver(messenger, clock, TO, LogState(), "<b>Title:</b> 1 < 2")
    [message] = messenger.chat(CHAT)
    assert (message.text, message.html) == ("Title: 1 < 2", False)


async def test_a_deleted_log_message_is_replaced_by_a_fresh_reply(clock: VirtualClock) -> None:
    messenger, state = FakeMessenger(), LogState()
    await deliver(messenger, clock, TO, state, "one")
    [gone] = messenger.chat(CHAT)
    await messenger.delete_message(CHAT, gone.message_id)
    await deliver(messenger, clock, TO, state, "one two")
    [fresh] = messenger.chat(CHAT)
    assert fresh.message_id != gone.message_id
    assert fresh.text == "one two"
    assert state.message_ids == [fresh.message_id]


@pytest.mark.parametrize(
    ("error", "waited"),
    [
        (MessengerError("Too Many Requests: retry after 7", 429, 7), 7.0),
        (MessengerError("Bad Gateway", 502), 0.5),
    ],
)
async def test_flood_control_and_server_errors_are_waited_out(
    clock: VirtualClock, error: MessengerError, waited: float
) -> None:
    messenger = FakeMessenger()
    messenger.fail_next("send_text", error)
    started = clock.now()
    delivering = asyncio.ensure_future(deliver(messenger, clock, TO, LogState(), "hello"))
    await clock.run_until(delivering.done, step=0.25)
    assert clock.now() - started == pytest.approx(waited, abs=0.3)
    assert messenger.texts(CHAT) == ["hello"]


async def test_a_permanent_error_is_raised_for_the_sender_to_log(clock: VirtualClock) -> None:
    messenger = FakeMessenger()
    messenger.fail_next("send_text", MessengerError("Forbidden: bot was blocked by the user", 403))
    with pytest.raises(MessengerError):
        await deliver(messenger, clock, TO, LogState(), "hello")
    assert messenger.texts(CHAT) == []
    assert messenger.calls == ["send_text"]


def test_a_bad_saved_state_starts_fresh() -> None:
    assert LogState.from_json("garbage") == LogState()
    assert LogState.from_json({"message_ids": ["x", 3], "text": 5}) == LogState([3], "", [])


def test_edit_gone_wording_is_the_real_one() -> None:
    assert EDIT_GONE == "Bad Request: message to edit not found"


from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

html_pieces = st.lists(
    st.one_of(
        st.text(max_size=40).map(lambda t: t.replace("<", "").replace(">", "").replace("&", "")),
        st.sampled_from(["<b>", "</b>", "<code>", "</code>", "&amp;", "🎬", "\n", "<i>", "</i>"]),
    ),
    max_size=300,
)


@given(pieces=html_pieces, limit=st.integers(min_value=120, max_value=600))
def test_split_keeps_every_chunk_within_the_limit_and_loses_no_text(pieces: list[str], limit: int) -> None:
    text = "".join(pieces)
    chunks = split_html(text, limit=limit)
    assert all(utf16_length(c) <= limit for c in chunks)
    assert strip_tags("".join(c.removeprefix(CONTINUED) for c in chunks)) == strip_tags(text)
