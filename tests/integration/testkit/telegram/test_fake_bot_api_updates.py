"""The fake's updates as Telegram hands them out: long polling, offsets, filters, one poller at a
time, webhooks, edits and migrations; and the waits a test makes on it."""

from __future__ import annotations

import asyncio

import aiohttp
import pytest

from testkit.telegram import (
    FakeBotApi,
)
from tests.support.fake_bot_api_checks import ONE_INSTANCE
from tests.support.people import ALICE, GROUP, PRIVATE
from tests.support.raw_bot_api import call, error


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
