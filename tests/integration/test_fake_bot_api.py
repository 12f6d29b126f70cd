"""The fake Bot API itself, spoken to over HTTP the way any client would (and by aiogram)."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from testkit.telegram import (
    DEFAULT_TOKEN,
    NOT_MODIFIED,
    ApiError,
    Chat,
    FakeBotApi,
    User,
    find_entities,
    parse_html,
)

ALICE = User(1337, "Alice", username="alice")
BOB = User(4242, "Bob")
PRIVATE = Chat.private(ALICE)
GROUP = Chat.group(-4001, "Friends")
WRONG_FILE = "Bad Request: wrong file identifier/HTTP URL specified"
TOO_OLD = "Bad Request: query is too old and response timeout expired or query ID is invalid"
TEXT_BUTTON = (
    "Bad Request: can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard"
)
ONE_INSTANCE = "make sure that only one bot instance is running"


@pytest.fixture
async def api() -> AsyncIterator[FakeBotApi]:
    async with FakeBotApi() as server:
        server.add_chat(PRIVATE)
        server.add_chat(GROUP)
        yield server


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


async def call(
    http: aiohttp.ClientSession,
    api: FakeBotApi,
    method: str,
    *,
    token: str = DEFAULT_TOKEN,
    verb: str = "POST",
    **kwargs: Any,
) -> tuple[int, dict[str, Any]]:
    url = f"{api.base_url}/bot{token}/{method}"
    async with http.request(verb, url, timeout=aiohttp.ClientTimeout(total=10), **kwargs) as response:
        return response.status, await response.json()


def error(body: dict[str, Any]) -> tuple[int, str]:
    assert body["ok"] is False
    return body["error_code"], body["description"]


# -- Telegram's text rules


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

    found = [(e["type"], _slice16(text, e)) for e in find_entities(text)]

    assert found == [
        ("url", "example.com/x"),
        ("url", "https://www.example.org/v?id=1"),
        ("url", "youtu.be/abc"),
        ("url", "ftp://example.net/f"),
        ("url", "127.0.0.1:8080/clip"),
        ("bot_command", "/verbose"),
    ]


def _slice16(text: str, entity: dict[str, Any]) -> str:
    units = text.encode("utf-16-le")
    start, length = entity["offset"] * 2, entity["length"] * 2
    return units[start : start + length].decode("utf-16-le")


# -- the HTTP surface


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
    status, body = await call(http, api, "sendDocument", json={"chat_id": PRIVATE.id})
    ok_status, me = await call(http, api, "GETME")

    assert (status, error(body)) == (404, (404, "Not Found"))
    assert ok_status == 200
    assert me["result"]["username"] == "vidrelay_test_bot"
    assert [c.method for c in api.calls] == ["sendDocument", "getMe"]


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


# -- faults


async def test_fail_next_answers_n_calls_with_the_error_then_behaves(
    api: FakeBotApi, http: aiohttp.ClientSession
) -> None:
    api.fail_next("sendMessage", code=429, retry_after=3, times=2)
    api.fail_next("getMe", code=502)
    message = {"chat_id": PRIVATE.id, "text": "x"}

    first = await call(http, api, "sendMessage", json=message)
    second = await call(http, api, "sendMessage", json=message)
    third = await call(http, api, "sendMessage", json=message)
    gateway = await call(http, api, "getMe")

    for status, body in (first, second):
        assert (status, error(body)) == (429, (429, "Too Many Requests: retry after 3"))
        assert body["parameters"] == {"retry_after": 3}
    assert third[0] == 200
    assert (gateway[0], error(gateway[1])) == (502, (502, "Bad Gateway"))
    assert len(api.messages(PRIVATE.id)) == 1


async def test_a_fault_for_one_chat_leaves_other_chats_alone(
    api: FakeBotApi, http: aiohttp.ClientSession
) -> None:
    api.fail_next("sendMessage", code=500, chat_id=GROUP.id)

    private, _ = await call(http, api, "sendMessage", json={"chat_id": PRIVATE.id, "text": "x"})
    group, body = await call(http, api, "sendMessage", json={"chat_id": GROUP.id, "text": "x"})

    assert private == 200
    assert (group, error(body)) == (500, (500, "Internal Server Error"))


async def test_a_message_deleted_by_the_user_cannot_be_edited_and_a_button_on_it_is_inaccessible(
    api: FakeBotApi, http: aiohttp.ClientSession
) -> None:
    _, sent = await call(http, api, "sendMessage", json={"chat_id": GROUP.id, "text": "prompt"})
    message_id = sent["result"]["message_id"]
    api.delete_message(GROUP.id, message_id)

    _, edit = await call(
        http, api, "editMessageText", json={"chat_id": GROUP.id, "message_id": message_id, "text": "y"}
    )
    api.press_button(GROUP, BOB, message_id, "dl:1")
    _, updates = await call(http, api, "getUpdates", json={"timeout": 0})

    assert error(edit) == (400, "Bad Request: message to edit not found")
    shown = updates["result"][0]["callback_query"]["message"]
    assert (shown["message_id"], shown["date"]) == (message_id, 0)


# -- updates


async def test_long_polling_hands_out_an_update_as_soon_as_it_is_sent(
    api: FakeBotApi, http: aiohttp.ClientSession
) -> None:
    loop = asyncio.get_running_loop()
    started = loop.time()
    poll = asyncio.create_task(call(http, api, "getUpdates", json={"timeout": 30}))
    await api.wait_for(lambda: api.polling)

    message_id = api.send_text(PRIVATE, ALICE, "example.com/x")
    status, body = await asyncio.wait_for(poll, 10)

    assert status == 200
    assert loop.time() - started < 10
    [update] = body["result"]
    assert update["message"]["message_id"] == message_id
    assert update["message"]["entities"] == [{"type": "url", "offset": 0, "length": 13}]


async def test_updates_stay_until_confirmed_by_a_higher_offset(
    api: FakeBotApi, http: aiohttp.ClientSession
) -> None:
    api.send_text(PRIVATE, ALICE, "one")
    api.send_text(PRIVATE, ALICE, "two")

    _, first = await call(http, api, "getUpdates", json={"timeout": 0})
    _, again = await call(http, api, "getUpdates", json={"timeout": 0})
    ids = [u["update_id"] for u in first["result"]]
    _, after = await call(http, api, "getUpdates", json={"offset": ids[0] + 1, "timeout": 0})
    _, empty = await call(http, api, "getUpdates", json={"offset": ids[1] + 1, "timeout": 0})

    assert [u["message"]["text"] for u in first["result"]] == ["one", "two"]
    assert again["result"] == first["result"]
    assert [u["update_id"] for u in after["result"]] == ids[1:]
    assert empty["result"] == []
    assert api.pending_updates == 0


async def test_allowed_updates_filters_and_limit_caps_the_batch(
    api: FakeBotApi, http: aiohttp.ClientSession
) -> None:
    api.send_text(PRIVATE, ALICE, "a")
    api.send_inline_query(ALICE, "example.com/x")
    api.send_text(PRIVATE, ALICE, "b")

    _, limited = await call(
        http, api, "getUpdates", data={"timeout": "0", "limit": "1", "allowed_updates": '["message"]'}
    )
    _, rest = await call(http, api, "getUpdates", json={"timeout": 0})

    assert [u["message"]["text"] for u in limited["result"]] == ["a"]
    assert [u["message"]["text"] for u in rest["result"]] == ["a", "b"]


async def test_a_second_poller_ends_the_first_with_409(api: FakeBotApi, http: aiohttp.ClientSession) -> None:
    first = asyncio.create_task(call(http, api, "getUpdates", json={"timeout": 30}))
    await api.wait_for(lambda: api.polling)

    second = asyncio.create_task(call(http, api, "getUpdates", json={"timeout": 30}))
    status, body = await asyncio.wait_for(first, 10)
    api.send_text(PRIVATE, ALICE, "hi")
    ok, delivered = await asyncio.wait_for(second, 10)

    assert status == 409
    assert error(body) == (409, f"Conflict: terminated by other getUpdates request; {ONE_INSTANCE}")
    assert ok == 200
    assert len(delivered["result"]) == 1


async def test_an_active_webhook_blocks_polling_until_deleted_with_drop_pending(
    api: FakeBotApi, http: aiohttp.ClientSession
) -> None:
    api.send_text(PRIVATE, ALICE, "stale")
    await call(
        http, api, "setWebhook", json={"url": "https://bot.example.com/hook", "secret_token": "s3cret"}
    )

    _, blocked = await call(http, api, "getUpdates", json={"timeout": 0})
    webhook = api.webhook
    await call(http, api, "deleteWebhook", json={"drop_pending_updates": True})
    _, after = await call(http, api, "getUpdates", json={"timeout": 0})

    assert error(blocked)[0] == 409
    assert webhook == {"url": "https://bot.example.com/hook", "secret_token": "s3cret"}
    assert after["result"] == []


async def test_an_edited_text_arrives_as_edited_message_and_joins_the_history(
    api: FakeBotApi, http: aiohttp.ClientSession
) -> None:
    message_id = api.send_text(PRIVATE, ALICE, "example.com/a")
    api.send_edited_text(PRIVATE, ALICE, message_id, "example.com/a example.com/b")

    _, body = await call(http, api, "getUpdates", json={"timeout": 0})

    edited = body["result"][1]["edited_message"]
    assert edited["message_id"] == message_id
    assert "edit_date" in edited
    assert len(edited["entities"]) == 2
    message = api.message(PRIVATE.id, message_id)
    assert message is not None
    assert message.texts == ["example.com/a", "example.com/a example.com/b"]


async def test_explicit_entities_are_passed_through_even_when_malformed(
    api: FakeBotApi, http: aiohttp.ClientSession
) -> None:
    bogus = [
        {"type": "url", "offset": 5, "length": 500},
        {"type": "text_link", "offset": 0, "length": 2, "url": "x"},
    ]
    api.send_text(PRIVATE, ALICE, "hi", entities=bogus)

    _, body = await call(http, api, "getUpdates", json={"timeout": 0})

    assert body["result"][0]["message"]["entities"] == bogus


async def test_a_group_migration_produces_both_service_messages_and_retires_the_old_id(
    api: FakeBotApi, http: aiohttp.ClientSession
) -> None:
    api.migrate_group(GROUP.id, -1009876543210)

    _, body = await call(http, api, "getUpdates", json={"timeout": 0})
    status, refused = await call(http, api, "sendMessage", json={"chat_id": GROUP.id, "text": "x"})

    old, new = (u["message"] for u in body["result"])
    assert (old["chat"]["id"], old["migrate_to_chat_id"]) == (GROUP.id, -1009876543210)
    assert (new["chat"]["type"], new["migrate_from_chat_id"]) == ("supergroup", GROUP.id)
    assert (status, refused["parameters"]) == (400, {"migrate_to_chat_id": -1009876543210})


# -- inline mode


async def test_inline_answers_are_recorded_and_a_chosen_result_can_have_its_media_swapped(
    api: FakeBotApi, http: aiohttp.ClientSession
) -> None:
    form = aiohttp.FormData({"chat_id": str(GROUP.id)})
    form.add_field("video", b"cached video", filename="v.mp4")
    _, cached = await call(http, api, "sendVideo", data=form)
    file_id = cached["result"]["video"]["file_id"]
    query_id = api.send_inline_query(ALICE, "example.com/v")
    results = [
        {"type": "video", "id": "0", "video_file_id": file_id, "title": "Send video"},
        {"type": "article", "id": "1", "title": "Wait", "input_message_content": {"message_text": "⏳"}},
    ]

    _, duplicate = await call(
        http,
        api,
        "answerInlineQuery",
        json={"inline_query_id": query_id, "results": [results[1], results[1]]},
    )
    _, answered = await call(
        http,
        api,
        "answerInlineQuery",
        json={"inline_query_id": query_id, "results": results, "cache_time": 0},
    )
    inline_id = api.choose_inline_result(ALICE, "1", query="example.com/v")
    _, swapped = await call(
        http,
        api,
        "editMessageMedia",
        json={
            "inline_message_id": inline_id,
            "media": {"type": "video", "media": file_id, "caption": "Title"},
        },
    )
    _, unknown = await call(
        http,
        api,
        "editMessageMedia",
        json={"inline_message_id": "nope", "media": {"type": "video", "media": file_id}},
    )

    assert error(duplicate) == (400, "Bad Request: RESULT_ID_DUPLICATE")
    assert answered["ok"] is True
    answer = api.inline_answer(query_id)
    assert answer is not None
    assert [r["id"] for r in answer.results] == ["0", "1"]
    assert answer.cache_time == 0
    assert swapped == {"ok": True, "result": True}
    [edit] = api.media_edits
    assert (edit.inline_message_id, edit.file.file_id, edit.media["caption"]) == (inline_id, file_id, "Title")
    assert error(unknown) == (400, "Bad Request: message to edit not found")


async def test_chat_actions_and_get_chat(api: FakeBotApi, http: aiohttp.ClientSession) -> None:
    await call(http, api, "sendChatAction", json={"chat_id": PRIVATE.id, "action": "upload_video"})
    _, chat = await call(http, api, "getChat", json={"chat_id": GROUP.id})

    assert api.chat_actions == [(PRIVATE.id, "upload_video")]
    assert (chat["result"]["id"], chat["result"]["type"]) == (GROUP.id, "group")


# -- waiting


async def test_wait_for_returns_the_truthy_value_once_a_call_makes_it_true(
    api: FakeBotApi, http: aiohttp.ClientSession
) -> None:
    waiting = asyncio.create_task(api.wait_for(lambda: api.messages(PRIVATE.id), timeout=10))
    await call(http, api, "sendMessage", json={"chat_id": PRIVATE.id, "text": "here"})

    [message] = await waiting

    assert message.text == "here"


async def test_wait_for_gives_up_after_its_timeout_naming_the_last_calls(
    api: FakeBotApi, http: aiohttp.ClientSession
) -> None:
    await call(http, api, "sendMessage", json={"chat_id": 1, "text": "x"})

    with pytest.raises(TimeoutError, match=r"sendMessage \(400\)"):
        await api.wait_for(api.videos, timeout=0.05)


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


async def test_a_webhook_left_behind_shows_in_getwebhookinfo_with_its_delivery_error(
    api: FakeBotApi, http: aiohttp.ClientSession
) -> None:
    api.send_text(PRIVATE, ALICE, "waiting")
    api.set_webhook("https://old.example.com/hook", delivery_error="Connection refused")
    _, info = await call(http, api, "getWebhookInfo")
    _, blocked = await call(http, api, "getUpdates", json={"timeout": 0})
    await call(http, api, "deleteWebhook", json={"drop_pending_updates": False})
    _, after = await call(http, api, "getUpdates", json={"timeout": 0})

    assert info["result"]["url"] == "https://old.example.com/hook"
    assert info["result"]["pending_update_count"] == 1
    assert info["result"]["last_error_message"] == "Connection refused"
    assert error(blocked)[0] == 409
    assert [u["message"]["text"] for u in after["result"]] == ["waiting"]
