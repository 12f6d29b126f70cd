"""Faults the tests plant in the fake (the next calls fail, one chat fails, a message the user
deleted), and inline mode's answers and swaps."""

from __future__ import annotations

import aiohttp

from testkit.telegram import (
    FakeBotApi,
)
from tests.support.people import ALICE, BOB, GROUP, PRIVATE
from tests.support.raw_bot_api import call, error


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
