"""A real aiogram Dispatcher long-polling the fake Bot API through make_bot's session."""

from __future__ import annotations

import asyncio

from aiogram import Bot, Dispatcher
from aiogram.types import CallbackQuery, Message

from testkit.telegram import Chat, FakeBotApi, User

ALICE = User(1337, "Alice", username="alice")
BOB = User(4242, "Bob")
GROUP = Chat.supergroup(-1001234, "Friends")


async def polling(dp: Dispatcher, bot: Bot) -> asyncio.Task[None]:
    return asyncio.create_task(
        dp.start_polling(bot, handle_signals=False, close_bot_session=False, polling_timeout=2)
    )


async def stop(dp: Dispatcher, task: asyncio.Task[None]) -> None:
    await dp.stop_polling()
    await asyncio.wait_for(task, 5)


async def test_the_dispatcher_receives_an_injected_text_with_its_url_entities(
    api: FakeBotApi, bot: Bot
) -> None:
    dp = Dispatcher()
    seen: asyncio.Queue[Message] = asyncio.Queue()

    @dp.message()
    async def on_message(message: Message) -> None:
        await seen.put(message)

    task = await polling(dp, bot)
    try:
        await api.wait_for(lambda: api.polling)
        text = "🎬 look: example.com/x and https://example.org/v?id=1."
        message_id = api.send_text(Chat.private(ALICE), ALICE, text)
        message = await asyncio.wait_for(seen.get(), 5)
        await api.wait_for(lambda: api.pending_updates == 0)
    finally:
        await stop(dp, task)

    assert message.message_id == message_id
    assert message.text == text
    assert message.chat.type == "private"
    assert message.from_user is not None
    assert message.from_user.id == ALICE.id
    urls = [e.extract_from(text) for e in message.entities or [] if e.type == "url"]
    assert urls == ["example.com/x", "https://example.org/v?id=1"]


async def test_updates_queued_together_arrive_in_one_batch_and_are_confirmed_by_offset(
    api: FakeBotApi, bot: Bot
) -> None:
    dp = Dispatcher()
    pressed: list[tuple[int, str | None]] = []
    both = asyncio.Event()

    @dp.callback_query()
    async def on_press(query: CallbackQuery) -> None:
        pressed.append((query.from_user.id, query.data))
        if len(pressed) == 2:
            both.set()

    api.add_chat(GROUP)
    prompt = (await bot.send_message(GROUP.id, "long?")).message_id
    api.press_button(GROUP, BOB, prompt, "dl:1")
    api.press_button(GROUP, ALICE, prompt, "no:1")
    task = await polling(dp, bot)
    try:
        await asyncio.wait_for(both.wait(), 5)
        await api.wait_for(lambda: api.pending_updates == 0)
    finally:
        await stop(dp, task)

    first_batch = next(c.result for c in api.calls_of("getUpdates") if c.result)
    assert [u["callback_query"]["data"] for u in first_batch] == ["dl:1", "no:1"]
    assert sorted(pressed) == [(ALICE.id, "no:1"), (BOB.id, "dl:1")]
