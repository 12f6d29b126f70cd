"""The bot's set-up at Telegram, as an operator meets it: its commands in every client's menu, a
webhook left by `run --webhook` that plain `run` removes without losing an update, and a
`/healthz` that says so while Telegram gives no updates."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.command_menus import ADMINS, EVERYONE, GROUPS
from testkit.bot_process import BotProcess, bot_environment
from testkit.loopback import free_port
from testkit.telegram import Chat, FakeBotApi, User
from testkit.video_site import VideoServer
from tests.e2e.conftest import CLIPS_DIR, WAIT_SECONDS, new_group, new_user, sha256_of, until_logged
from tests.e2e.test_metrics import get, until_status

pytestmark = pytest.mark.slow


async def test_at_start_the_bot_publishes_its_menus_for_everyone_groups_and_each_admin(
    tmp_path: Path,
) -> None:
    admin, never_seen = User(4300, "Admin"), User(4301, "Other admin")
    async with FakeBotApi() as api:
        api.add_chat(Chat.private(admin))  # an admin who started the bot: Telegram knows the chat
        env = bot_environment(api, tmp_path / "data", VIDRELAY_ADMIN_USER_IDS=f"{admin.id},{never_seen.id}")
        bot = BotProcess(env, tmp_path / "bot.log")
        try:
            await bot.start(api)
            # Four menus in each language of the catalog (English, Spanish, Russian).
            await until_logged(bot, "published 9 command menu(s) of 12")
            assert bot.running
        finally:
            await bot.close()
        everyone, groups = api.commands(), api.commands("all_group_chats")
        admins = api.commands("chat", chat_id=admin.id)
        spanish, russian = api.commands(language="es"), api.commands("chat", chat_id=admin.id, language="ru")
    assert [name for name, _ in everyone] == list(EVERYONE)
    assert spanish[0] == ("help", "Qué hago y cómo pedírmelo")
    assert [name for name, _ in russian] == list(ADMINS)
    assert russian[0] == ("help", "Что я умею и как меня попросить")
    assert [name for name, _ in groups] == list(GROUPS)
    assert [name for name, _ in admins] == list(ADMINS)
    assert all(description for _, description in everyone + groups + admins)
    refused = [line for line in bot.log().splitlines() if "could not publish a command menu" in line]
    assert len(refused) == 3  # the admin Telegram does not know, in each language
    assert all(f"chat_id={never_seen.id}" in line for line in refused)
    assert 'error="400 Bad Request: chat not found"' in refused[0]


async def test_plain_run_after_a_webhook_deletes_it_keeping_the_updates_that_waited(tmp_path: Path) -> None:
    async with VideoServer(CLIPS_DIR) as site, FakeBotApi() as api:
        api.set_webhook("https://bot.example.com/webhook", delivery_error="Connection refused")
        user = new_user()
        waiting = api.send_text(Chat.private(user), user, site.url("/clips/short.mp4"))
        bot = BotProcess(bot_environment(api, tmp_path / "data", sites=[site]), tmp_path / "bot.log")
        try:
            await bot.start(api)  # returns once it long-polls: getUpdates no longer meets a 409
            video = await api.wait_for(
                lambda: next((v for v in api.videos(user.id) if v.reply_to == waiting), None),
                timeout=WAIT_SECONDS,
            )
        finally:
            await bot.close()
        deletes = api.calls_of("deleteWebhook")
    assert video.sha256 == sha256_of(site.clip("short"))
    assert api.webhook is None
    assert len(deletes) == 1
    assert str(deletes[0].params.get("drop_pending_updates", False)).lower() in {"false", "0"}
    said = [line for line in bot.log().splitlines() if "a webhook was set" in line]
    assert len(said) == 1
    assert "https://bot.example.com/…" in said[0]
    assert "1 waiting update(s)" in said[0]


async def test_healthz_is_503_saying_why_while_telegram_gives_no_updates_and_200_once_it_does(
    tmp_path: Path,
) -> None:
    port = free_port()
    healthz = f"http://127.0.0.1:{port}/healthz"
    api = FakeBotApi()
    await api.start()
    env = bot_environment(
        api, tmp_path / "data", VIDRELAY_METRICS_PORT=str(port), VIDRELAY_HEALTH_STALE_SECONDS="3"
    )
    bot = BotProcess(env, tmp_path / "bot.log")
    try:
        await bot.start(api)
        assert await get(healthz) == (200, "ok\n")
        await api.stop()  # Telegram unreachable: every getUpdates fails from now on
        down = await until_status(healthz, 503)
        assert down.startswith("unhealthy: no updates from Telegram for ")
        assert "(VIDRELAY_HEALTH_STALE_SECONDS=3)" in down
        assert "getUpdates failed" in down

        await api.start()
        assert await until_status(healthz, 200) == "ok\n"
        api.set_webhook("https://elsewhere.example.com/hook")  # another deployment took the token
        conflict = await until_status(healthz, 503)
        assert "409 Conflict: can't use getUpdates method while webhook is active" in conflict
        assert bot.running
    finally:
        await bot.close()
        await api.stop()
    failed = [line for line in bot.log().splitlines() if "getUpdates failed" in line]
    assert failed, bot.log()
    assert all("level=warning" in line and "error=" in line for line in failed), failed


async def test_a_chat_off_the_allowlist_is_told_once_with_its_id_and_id_works_for_it(tmp_path: Path) -> None:
    allowed, outsider = new_group(), new_user()
    async with VideoServer(CLIPS_DIR) as site, FakeBotApi() as api:
        env = bot_environment(api, tmp_path / "data", sites=[site], VIDRELAY_ALLOWED_CHAT_IDS=str(allowed.id))
        bot = BotProcess(env, tmp_path / "bot.log")
        try:
            await bot.start(api)
            chat = Chat.private(outsider)
            first = api.send_text(chat, outsider, site.url("/clips/short.mp4"))
            api.send_text(chat, outsider, site.url("/clips/short.mp4?again"))
            asked = api.send_text(chat, outsider, "/id")
            ids = await api.wait_for(
                lambda: next((m for m in api.messages(outsider.id) if m.reply_to == asked), None),
                timeout=WAIT_SECONDS,
            )
            served = api.send_text(allowed, outsider, site.url("/clips/short.mp4"))
            await api.wait_for(
                lambda: next((v for v in api.videos(allowed.id) if v.reply_to == served), None),
                timeout=WAIT_SECONDS,
            )
        finally:
            await bot.close()
        replies = {m.reply_to: m.text or "" for m in api.messages(outsider.id) if m.from_bot}
    assert sorted(replies) == [first, asked]  # one polite answer for two links, and the ids
    assert f"Ask my operator to add this one: {outsider.id}" in replies[first]
    assert f"Your user id: {outsider.id}" in (ids.text or "")
    assert api.videos(outsider.id) == []
    told = [line for line in bot.log().splitlines() if "off VIDRELAY_ALLOWED_CHAT_IDS" in line]
    assert len(told) == 1
    assert f"chat_id={outsider.id}" in told[0]
