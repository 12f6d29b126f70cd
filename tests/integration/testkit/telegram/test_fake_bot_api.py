"""Our fake Bot API over plain HTTP: Telegram's text rules, its HTTP surface, its refusals with
Telegram's codes and wording, and its record of every call."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from testkit.telegram import (
    NOT_MODIFIED,
    ApiError,
    FakeBotApi,
    find_entities,
    parse_html,
)
from tests.support.fake_bot_api_checks import TEXT_BUTTON, TOO_OLD, WRONG_FILE, slice16
from tests.support.people import ALICE, BOB, GROUP, PRIVATE
from tests.support.raw_bot_api import call, error


@pytest.mark.parametrize(
    ("html", "detail"),
    [
        ("<b>bold", 'Can\'t find end tag corresponding to start tag "b"'),
        ("<script>x</script>", 'Unsupported start tag "script" at byte offset 0'),
        ("é <b>x</i>", 'Unmatched end tag at byte offset 7, expected "</b>", found "</i>"'),
        ("x</b>", "Unexpected end tag at byte offset 1"),
        ("a <b", "Unclosed start tag at byte offset 2"),
        (
            "<a href>x</a>",
            'Expected equal sign in declaration of an attribute of the tag "a" at byte offset 0',
        ),
        ("<span>x</span>", 'Tag "span" must have class "tg-spoiler" at byte offset 0'),
        ("3 < 4", 'Unsupported start tag "" at byte offset 2'),
    ],
)
def test_bad_html_is_refused_with_telegrams_wording(html: str, detail: str) -> None:
    with pytest.raises(ApiError) as caught:
        parse_html(html)

    assert caught.value.code == 400
    assert caught.value.description == f"Bad Request: can't parse entities: {detail}"


def test_html_becomes_text_and_entities_with_utf16_offsets() -> None:
    text, entities = parse_html(
        '🎬 <b>Video info:</b>\n<a href="https://e.com/?a=1&amp;b=2">link</a> &lt;3 <code>x&amp;y</code>'
    )

    assert text == "🎬 Video info:\nlink <3 x&y"
    assert entities == [
        {"type": "bold", "offset": 3, "length": 11},
        {"type": "text_link", "offset": 15, "length": 4, "url": "https://e.com/?a=1&b=2"},
        {"type": "code", "offset": 23, "length": 3},
    ]


def test_url_entities_are_found_like_telegram_does() -> None:
    text = (
        "👋 see example.com/x, https://www.example.org/v?id=1. (youtu.be/abc) "
        "mail me@example.com file:///etc/passwd ftp://example.net/f 127.0.0.1:8080/clip /verbose notes.txt"
    )

    found = [(e["type"], slice16(text, e)) for e in find_entities(text)]

    assert found == [
        ("url", "example.com/x"),
        ("url", "https://www.example.org/v?id=1"),
        ("url", "youtu.be/abc"),
        ("url", "ftp://example.net/f"),
        ("url", "127.0.0.1:8080/clip"),
        ("bot_command", "/verbose"),
    ]


async def test_json_form_multipart_and_query_bodies_are_all_understood(
    api: FakeBotApi, http: aiohttp.ClientSession
) -> None:
    as_json = await call(http, api, "sendMessage", json={"chat_id": PRIVATE.id, "text": "json"})
    as_form = await call(http, api, "sendMessage", data={"chat_id": str(PRIVATE.id), "text": "form"})
    as_query = await call(
        http, api, "sendMessage", verb="GET", params={"chat_id": PRIVATE.id, "text": "query"}
    )
    form = aiohttp.FormData()
    form.add_field("chat_id", str(PRIVATE.id))
    form.add_field("video", b"raw video bytes", filename="clip.mp4", content_type="video/mp4")
    form.add_field("reply_markup", json.dumps({"inline_keyboard": [[{"text": "A", "callback_data": "a"}]]}))
    as_multipart = await call(http, api, "sendVideo", data=form)

    assert [status for status, _ in (as_json, as_form, as_query, as_multipart)] == [200] * 4
    assert [m.text for m in api.messages(PRIVATE.id)[:3]] == ["json", "form", "query"]
    [video] = api.videos()
    assert video.sha256 == hashlib.sha256(b"raw video bytes").hexdigest()
    assert video.reply_markup == {"inline_keyboard": [[{"text": "A", "callback_data": "a"}]]}
    assert as_multipart[1]["result"]["video"]["file_size"] == len(b"raw video bytes")


async def test_unknown_methods_are_404_and_method_names_ignore_case(
    api: FakeBotApi, http: aiohttp.ClientSession
) -> None:
    status, body = await call(http, api, "sendSticker", json={"chat_id": PRIVATE.id})
    ok_status, me = await call(http, api, "GETME")

    assert (status, error(body)) == (404, (404, "Not Found"))
    assert ok_status == 200
    assert me["result"]["username"] == "vidrelay_test_bot"
    assert [c.method for c in api.calls] == ["sendSticker", "getMe"]


async def test_a_wrong_token_is_unauthorized(api: FakeBotApi, http: aiohttp.ClientSession) -> None:
    status, body = await call(http, api, "getMe", token="1:wrong")

    assert (status, error(body)) == (401, (401, "Unauthorized"))


async def test_calls_are_recorded_with_chat_time_outcome_and_file_hashes(
    api: FakeBotApi, http: aiohttp.ClientSession
) -> None:
    await call(http, api, "sendMessage", json={"chat_id": GROUP.id, "text": "<b>x", "parse_mode": "HTML"})
    form = aiohttp.FormData()
    form.add_field("chat_id", str(GROUP.id))
    form.add_field("video", "attach://clip")
    form.add_field("clip", b"bytes", filename="clip.mp4")
    await call(http, api, "sendVideo", data=form)

    refused, sent = api.calls
    assert (refused.method, refused.chat_id, refused.ok, refused.error_code) == (
        "sendMessage",
        GROUP.id,
        False,
        400,
    )
    assert refused.description is not None
    assert refused.description.startswith("Bad Request: can't parse entities")
    assert (sent.ok, sent.files) == (True, {"video": hashlib.sha256(b"bytes").hexdigest()})
    assert sent.at >= refused.at


async def test_uploads_are_kept_by_digest_when_asked_and_thumbnails_are_measured(
    http: aiohttp.ClientSession, tmp_path: Path
) -> None:
    thumb = b"\xff\xd8\xff\xc0\x00\x11\x08\x00\xb4\x01\x40\x03" + b"\x00" * 40  # SOF0: 320x180
    big = b"\xff\xd8\xff\xc0\x00\x11\x08\x02\xd0\x05\x00\x03" + b"\x00" * 40  # 1280x720
    async with FakeBotApi(keep_uploads=tmp_path / "kept") as api:
        api.add_chat(PRIVATE)
        for picture in (thumb, big, b"not a jpeg"):
            form = aiohttp.FormData()
            form.add_field("chat_id", str(PRIVATE.id))
            form.add_field("video", b"video bytes", filename="v.mp4")
            form.add_field("thumbnail", "attach://t")
            form.add_field("t", picture, filename="t.jpg")
            status, _ = await call(http, api, "sendVideo", data=form)
            assert status == 200

        first, second, third = api.videos(PRIVATE.id)
        assert api.uploaded_file(first.sha256).read_bytes() == b"video bytes"
        assert first.thumbnail is not None
        assert (first.thumbnail.width, first.thumbnail.height, first.thumbnail.valid) == (320, 180, True)
        assert second.thumbnail is not None
        assert not second.thumbnail.valid  # over 320 px: Telegram would ignore it
        assert third.thumbnail is not None
        assert (third.thumbnail.width, third.thumbnail.valid) == (None, False)
        with pytest.raises(KeyError):
            api.uploaded_file("0" * 64)


async def test_message_ids_count_per_chat_and_results_look_like_telegrams(
    api: FakeBotApi, http: aiohttp.ClientSession
) -> None:
    asked = api.send_text(GROUP, BOB, "https://example.com/v")
    _, first = await call(
        http,
        api,
        "sendMessage",
        json={"chat_id": GROUP.id, "text": "hi", "reply_parameters": {"message_id": asked}},
    )
    _, other_chat = await call(http, api, "sendMessage", json={"chat_id": PRIVATE.id, "text": "hi"})

    message = first["result"]
    assert message["message_id"] == asked + 1
    assert other_chat["result"]["message_id"] == 1
    assert message["chat"] == {"id": GROUP.id, "type": "group", "title": "Friends"}
    assert message["from"]["id"] == api.bot.id
    assert message["from"]["is_bot"] is True
    assert message["reply_to_message"]["text"] == "https://example.com/v"
    assert message["reply_to_message"]["from"]["id"] == BOB.id


@pytest.mark.parametrize(
    ("method", "params", "expected"),
    [
        ("sendMessage", {"chat_id": 1, "text": "x"}, (400, "Bad Request: chat not found")),
        ("sendMessage", {"chat_id": PRIVATE.id, "text": " "}, (400, "Bad Request: message text is empty")),
        (
            "sendMessage",
            {"chat_id": PRIVATE.id, "text": "x", "reply_parameters": {"message_id": 99}},
            (400, "Bad Request: message to be replied not found"),
        ),
        (
            "sendMessage",
            {"chat_id": PRIVATE.id, "text": "x", "reply_markup": {"inline_keyboard": [[{"text": "a"}]]}},
            (400, TEXT_BUTTON),
        ),
        (
            "sendMessage",
            {
                "chat_id": PRIVATE.id,
                "text": "x",
                "reply_markup": {"inline_keyboard": [[{"text": "a", "callback_data": "x" * 65}]]},
            },
            (400, "Bad Request: BUTTON_DATA_INVALID"),
        ),
        (
            "editMessageText",
            {"chat_id": PRIVATE.id, "message_id": 99, "text": "x"},
            (400, "Bad Request: message to edit not found"),
        ),
        (
            "deleteMessage",
            {"chat_id": PRIVATE.id, "message_id": 99},
            (400, "Bad Request: message to delete not found"),
        ),
        ("sendVideo", {"chat_id": PRIVATE.id, "video": "nonsense"}, (400, WRONG_FILE)),
        ("sendVideo", {"chat_id": PRIVATE.id, "video": "/etc/hostname"}, (400, WRONG_FILE)),
        (
            "sendVideo",
            {"chat_id": PRIVATE.id, "video": "https://example.com/v.mp4"},
            (400, "Bad Request: failed to get HTTP URL content"),
        ),
        ("answerCallbackQuery", {"callback_query_id": "1"}, (400, TOO_OLD)),
        ("getChat", {"chat_id": -1}, (400, "Bad Request: chat not found")),
    ],
)
async def test_refusals_carry_the_real_code_and_wording(
    api: FakeBotApi,
    http: aiohttp.ClientSession,
    method: str,
    params: dict[str, Any],
    expected: tuple[int, str],
) -> None:
    status, body = await call(http, api, method, json=params)

    assert (status, error(body)) == (expected[0], expected)


async def test_a_reply_to_a_missing_message_may_be_allowed(
    api: FakeBotApi, http: aiohttp.ClientSession
) -> None:
    status, body = await call(
        http,
        api,
        "sendMessage",
        json={
            "chat_id": PRIVATE.id,
            "text": "x",
            "reply_parameters": {"message_id": 99, "allow_sending_without_reply": True},
        },
    )

    assert status == 200
    assert "reply_to_message" not in body["result"]


async def test_edits_of_others_messages_and_of_videos_are_refused(
    api: FakeBotApi, http: aiohttp.ClientSession
) -> None:
    users = api.send_text(PRIVATE, ALICE, "hello")
    form = aiohttp.FormData({"chat_id": str(PRIVATE.id)})
    form.add_field("video", b"v", filename="v.mp4")
    _, video = await call(http, api, "sendVideo", data=form)

    _, not_ours = await call(
        http, api, "editMessageText", json={"chat_id": PRIVATE.id, "message_id": users, "text": "x"}
    )
    _, no_text = await call(
        http,
        api,
        "editMessageText",
        json={"chat_id": PRIVATE.id, "message_id": video["result"]["message_id"], "text": "x"},
    )

    assert error(not_ours) == (400, "Bad Request: message can't be edited")
    assert error(no_text) == (400, "Bad Request: there is no text in the message to edit")


async def test_an_edit_that_changes_only_the_keyboard_is_an_edit(
    api: FakeBotApi, http: aiohttp.ClientSession
) -> None:
    markup = {"inline_keyboard": [[{"text": "A", "callback_data": "a"}]]}
    _, sent = await call(
        http, api, "sendMessage", json={"chat_id": PRIVATE.id, "text": "x", "reply_markup": markup}
    )
    message_id = sent["result"]["message_id"]

    _, same = await call(
        http,
        api,
        "editMessageText",
        json={"chat_id": PRIVATE.id, "message_id": message_id, "text": "x", "reply_markup": markup},
    )
    _, dropped = await call(
        http, api, "editMessageText", json={"chat_id": PRIVATE.id, "message_id": message_id, "text": "x"}
    )
    _, markup_again = await call(
        http, api, "editMessageReplyMarkup", json={"chat_id": PRIVATE.id, "message_id": message_id}
    )

    assert error(same) == (400, NOT_MODIFIED)
    assert dropped["ok"] is True
    assert error(markup_again) == (400, NOT_MODIFIED)
    message = api.message(PRIVATE.id, message_id)
    assert message is not None
    assert [v.reply_markup for v in message.history] == [markup, None]


async def test_command_menus_are_kept_by_scope_and_language_and_checked_like_telegram(
    api: FakeBotApi, http: aiohttp.ClientSession
) -> None:
    menu = [{"command": "audio", "description": "the sound of a link"}]
    await call(http, api, "setMyCommands", json={"commands": menu})
    await call(http, api, "setMyCommands", json={"commands": menu, "language_code": "es"})
    _, got = await call(http, api, "getMyCommands", json={"scope": {"type": "default"}})
    upper = [{"command": "Audio", "description": "x"}]
    _, wrong = await call(http, api, "setMyCommands", json={"commands": upper})
    blank = [{"command": "audio", "description": " "}]
    _, empty = await call(http, api, "setMyCommands", json={"commands": blank})
    stranger = {"type": "chat", "chat_id": 987654}
    _, unknown = await call(http, api, "setMyCommands", json={"commands": menu, "scope": stranger})

    assert got["result"] == menu
    assert api.commands() == api.commands(language="es") == [("audio", "the sound of a link")]
    assert api.commands("all_group_chats") == []
    assert error(wrong) == (400, "Bad Request: BOT_COMMAND_INVALID")
    assert error(empty) == (400, "Bad Request: command description must be non-empty")
    assert error(unknown) == (400, "Bad Request: chat not found")
