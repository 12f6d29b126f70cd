"""TelegramMessenger's texts, reactions, button answers and inline edits: a real aiogram Bot
talking HTTP to the fake Bot API on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.telegram.messenger import TelegramMessenger
from core.telegram_errors import (
    is_message_gone,
    is_not_modified,
    is_parse_error,
    is_wrong_file_id,
)
from ports.messenger import Button, VideoFile, VideoMeta
from testkit.telegram import FakeBotApi
from tests.support.people import ALICE, BOB, GROUP, PRIVATE
from tests.support.telegram_bots import refused, sha256


async def test_send_text_replies_silently_in_html_without_preview_and_returns_the_message_id(
    api: FakeBotApi, messenger: TelegramMessenger
) -> None:
    asked = api.send_text(PRIVATE, ALICE, "https://example.com/v")
    first = await messenger.send_text(PRIVATE.id, "🧐 <b>Scraping</b> URL...", reply_to=asked)
    second = await messenger.send_text(PRIVATE.id, "plain <not html>", html=False, silent=False)

    assert (first, second) == (asked + 1, asked + 2)
    log = api.message(PRIVATE.id, first)
    assert log is not None
    assert log.text == "🧐 Scraping URL..."
    assert log.entities == [{"type": "bold", "offset": 3, "length": 8}]
    assert log.reply_to == asked
    assert log.silent
    assert log.link_preview_disabled
    assert log.sources == ["🧐 <b>Scraping</b> URL..."]
    plain = api.message(PRIVATE.id, second)
    assert plain is not None
    assert plain.text == "plain <not html>"
    assert not plain.silent


async def test_send_text_with_a_keyboard_sends_the_buttons(
    api: FakeBotApi, messenger: TelegramMessenger
) -> None:
    keyboard = [[Button("👍 Yes please", callback_data="dl:1"), Button("👎 No thanks", callback_data="no:1")]]
    sent = await messenger.send_text(GROUP.id, "This video is pretty long (25m)", keyboard=keyboard)

    message = api.message(GROUP.id, sent)
    assert message is not None
    assert message.reply_markup == {
        "inline_keyboard": [
            [
                {"text": "👍 Yes please", "callback_data": "dl:1"},
                {"text": "👎 No thanks", "callback_data": "no:1"},
            ]
        ]
    }


async def test_edits_are_recorded_in_order_on_the_same_message(
    api: FakeBotApi, messenger: TelegramMessenger
) -> None:
    sent = await messenger.send_text(PRIVATE.id, "🧐 <b>Scraping</b> URL...")
    await messenger.edit_text(PRIVATE.id, sent, "🧐 <b>Scraping</b> URL...\n⬇️ <b>Downloading...</b>")
    await messenger.edit_text(
        PRIVATE.id, sent, "done", keyboard=[[Button("Source", url="https://example.com/v")]]
    )

    [message] = api.messages(PRIVATE.id)
    assert message.texts == ["🧐 Scraping URL...", "🧐 Scraping URL...\n⬇️ Downloading...", "done"]
    assert message.edits == 2
    assert message.reply_markup == {"inline_keyboard": [[{"text": "Source", "url": "https://example.com/v"}]]}


async def test_an_identical_edit_is_recognised_as_not_modified(
    api: FakeBotApi, messenger: TelegramMessenger
) -> None:
    sent = await messenger.send_text(PRIVATE.id, "<b>same</b>")

    error = await refused(messenger.edit_text(PRIVATE.id, sent, "<b>same</b>"))

    assert error.code == 400
    assert is_not_modified(error)
    assert not is_parse_error(error)


@pytest.mark.parametrize(
    ("html", "detail"),
    [
        ("<b>unclosed", 'Can\'t find end tag corresponding to start tag "b"'),
        ("<blink>x</blink>", 'Unsupported start tag "blink" at byte offset 0'),
        ("<b>x</i>", 'Unmatched end tag at byte offset 4, expected "</b>", found "</i>"'),
        ("1 < 2", 'Unsupported start tag "" at byte offset 2'),
    ],
)
async def test_bad_html_is_recognised_as_a_parse_error(
    messenger: TelegramMessenger, html: str, detail: str
) -> None:
    error = await refused(messenger.send_text(PRIVATE.id, html))

    assert error.code == 400
    assert error.description == f"Bad Request: can't parse entities: {detail}"
    assert is_parse_error(error)


async def test_editing_a_message_the_user_deleted_is_recognised_as_gone(
    api: FakeBotApi, messenger: TelegramMessenger
) -> None:
    sent = await messenger.send_text(PRIVATE.id, "⬇️ Downloading...")
    api.delete_message(PRIVATE.id, sent)

    error = await refused(messenger.edit_text(PRIVATE.id, sent, "🚀 Uploading..."))

    assert error.description == "Bad Request: message to edit not found"
    assert is_message_gone(error)


async def test_delete_message_removes_it_and_a_second_delete_is_refused(
    api: FakeBotApi, messenger: TelegramMessenger
) -> None:
    sent = await messenger.send_text(GROUP.id, "prompt")
    await messenger.delete_message(GROUP.id, sent)

    error = await refused(messenger.delete_message(GROUP.id, sent))

    assert api.messages(GROUP.id) == []
    message = api.message(GROUP.id, sent)
    assert message is not None
    assert message.deleted_by_bot
    assert (error.code, error.description) == (400, "Bad Request: message to delete not found")


async def test_a_reply_to_a_deleted_message_is_sent_unthreaded(
    api: FakeBotApi, messenger: TelegramMessenger
) -> None:
    asked = api.send_text(GROUP, BOB, "example.com/v")
    api.delete_message(GROUP.id, asked)

    message_id = await messenger.send_text(GROUP.id, "reply", reply_to=asked)

    sent = api.message(GROUP.id, message_id)
    assert sent is not None
    assert sent.text == "reply"
    assert sent.reply_to is None


async def test_a_text_over_4096_characters_is_refused(messenger: TelegramMessenger) -> None:
    await messenger.send_text(PRIVATE.id, "x" * 4096)

    error = await refused(messenger.send_text(PRIVATE.id, "x" * 4097))

    assert (error.code, error.description) == (400, "Bad Request: message is too long")


async def test_react_sets_an_allowed_emoji_and_an_unknown_one_is_refused(
    api: FakeBotApi, messenger: TelegramMessenger
) -> None:
    asked = api.send_text(GROUP, BOB, "https://example.com/broken")

    await messenger.react(GROUP.id, asked, "😢")
    error = await refused(messenger.react(GROUP.id, asked, "🦖"))

    [reaction] = api.reactions(GROUP.id)
    assert (reaction.message_id, reaction.emojis) == (asked, ("😢",))
    assert (error.code, error.description) == (400, "Bad Request: REACTION_INVALID")


async def test_answer_callback_is_recorded_once_and_a_second_answer_is_refused(
    api: FakeBotApi, messenger: TelegramMessenger
) -> None:
    prompt = await messenger.send_text(
        GROUP.id, "long?", keyboard=[[Button("👍 Yes please", callback_data="dl:1")]]
    )
    query = api.press_button(GROUP, BOB, prompt, "dl:1")

    await messenger.answer_callback(query, "Starting download...")
    error = await refused(messenger.answer_callback(query, "again"))

    answer = api.callback_answer(query)
    assert answer is not None
    assert answer.text == "Starting download..."
    assert "query is too old" in error.description


async def test_edit_inline_video_swaps_the_media_of_the_chosen_result(
    api: FakeBotApi, messenger: TelegramMessenger, clip: Path
) -> None:
    cached = await messenger.send_video(GROUP.id, VideoFile(clip), VideoMeta())
    inline_id = api.choose_inline_result(ALICE, "0", query="https://example.com/v")
    keyboard = [[Button("Source", url="https://example.com/v")]]

    await messenger.edit_inline_video(
        inline_id,
        cached.file_id,
        VideoMeta(duration=7, width=640, height=360, caption="A title"),
        keyboard=keyboard,
    )

    [edit] = api.media_edits
    assert edit.inline_message_id == inline_id
    assert edit.file.file_id == cached.file_id
    assert edit.file.sha256 == sha256(clip)
    assert edit.media["caption"] == "A title"
    assert edit.media["supports_streaming"] is True
    assert edit.reply_markup == {"inline_keyboard": [[{"text": "Source", "url": "https://example.com/v"}]]}


async def test_edit_inline_video_with_an_unknown_file_id_is_a_wrong_file_id(
    api: FakeBotApi, messenger: TelegramMessenger
) -> None:
    inline_id = api.choose_inline_result(ALICE, "0")

    error = await refused(messenger.edit_inline_video(inline_id, "BAACAgIAAxkBAAIbogus", VideoMeta()))

    assert is_wrong_file_id(error)
    assert api.media_edits == []
