"""A hostile member of a group, pressing buttons with data of their own choosing (issue 14)."""

from __future__ import annotations

import secrets

import pytest

from testkit.telegram import Chat, StoredMessage
from tests.e2e.conftest import WAIT_SECONDS, Stack, new_group, new_user

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.slow]

NOT_VALID = "This button is no longer valid."


async def long_video_prompt(stack: Stack, group: Chat, tag: str) -> tuple[int, StoredMessage]:
    """A member posts a long video; the bot asks first. The link's and the prompt's message."""
    link = stack.api.send_text(group, new_user(), stack.site.url("/pages/long.html") + f"?{tag}")
    prompt = await stack.api.wait_for(
        lambda: next((m for m in stack.api.messages(group.id) if m.reply_markup), None), timeout=WAIT_SECONDS
    )
    return link, prompt


def buttons(prompt: StoredMessage) -> tuple[str, str]:
    assert prompt.reply_markup is not None
    [[yes, no]] = prompt.reply_markup["inline_keyboard"]
    return str(yes["callback_data"]), str(no["callback_data"])


def tampered(data: str) -> str:
    action, object_id, mac = data.split(":")
    return f"{action}:{object_id}:{mac[:-1]}{'B' if mac[-1] == 'A' else 'A'}"


async def test_only_a_prompts_own_signed_data_pressed_on_it_acts(shared: Stack) -> None:
    group_a, group_b, member = new_group(), new_group(), new_user()
    link_a, prompt_a = await long_video_prompt(shared, group_a, "bound-a")
    _, prompt_b = await long_video_prompt(shared, group_b, "bound-b")
    yes_a, _ = buttons(prompt_a)
    yes_b, no_b = buttons(prompt_b)
    calls_to_b = len([c for c in shared.api.calls if c.chat_id == group_b.id])
    versions = (len(prompt_a.history), len(prompt_b.history))
    forged: list[str | bytes] = [
        yes_b,  # group B's own button, correctly formed and signed for B's prompt
        no_b,
        secrets.token_bytes(48),  # random bytes
        "J" * 64,  # junk of Telegram's full 64 bytes
        f"confirm:{yes_a.split(':')[1]}:" + "A" * 16,  # A's object, a made-up tag
        tampered(yes_a),  # A's own data with one character of the tag changed
    ]

    presses = [shared.api.press_button(group_a, member, prompt_a.message_id, data) for data in forged]
    answers = await shared.api.wait_for(
        lambda: answered if all(answered := [shared.api.callback_answer(p) for p in presses]) else None,
        timeout=WAIT_SECONDS,
    )

    assert [(a.text, a.show_alert) for a in answers if a] == [(NOT_VALID, True)] * len(forged)
    assert (len(prompt_a.history), len(prompt_b.history)) == versions
    assert (prompt_a.reply_markup, prompt_b.reply_markup) != (None, None)
    assert shared.bot.log().count("refused a button press") == len(forged)

    genuine = shared.api.press_button(group_a, member, prompt_a.message_id, yes_a)
    answer = await shared.api.wait_for(lambda: shared.api.callback_answer(genuine), timeout=WAIT_SECONDS)
    assert answer.text == "👍 On it!"
    video = await shared.video_reply(group_a.id, link_a, timeout=120)
    assert video.duration == 1500
    assert len([c for c in shared.api.calls if c.chat_id == group_b.id]) == calls_to_b
    assert shared.api.videos(group_b.id) == []
    # B's prompt was never touched: it is still there to be answered.
    assert buttons(prompt_b) == (yes_b, no_b)
    assert prompt_b.reply_markup is not None
