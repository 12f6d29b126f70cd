"""The bot's set-up at Telegram, decided in the core: its command menus, a webhook left behind,
and the freshness of updates that `/healthz` judges — against a scripted account, virtual time."""

from __future__ import annotations

import asyncio
import logging
import re

import pytest

from core.command_menus import ADMINS, EVERYONE, GROUPS, command_menus, translations
from core.startup import leave_webhook, publish_menus
from core.texts import COMMAND_DESCRIPTIONS
from core.update_freshness import UpdateFreshness
from entrypoints.bot.webhook import watch_webhook
from ports.bot_account import BotAccount, BotProfile, CommandMenu, WebhookState
from ports.messenger import MessengerError
from tests.support.clock import VirtualClock
from tests.support.languages import languages


class ScriptedAccount(BotAccount):
    def __init__(self, webhook: WebhookState | None = None, refuse: frozenset[int] = frozenset()) -> None:
        self.state = webhook or WebhookState("")
        self.published: list[CommandMenu] = []
        self.dropped = 0
        self._refuse = refuse

    async def identify(self) -> str:
        return "@vidrelay_bot"

    async def profile(self) -> BotProfile:
        return BotProfile("@vidrelay_bot", reads_group_messages=True)

    async def publish_commands(self, menu: CommandMenu) -> None:
        if menu.chat_id in self._refuse:
            raise MessengerError("Bad Request: chat not found", 400)
        self.published.append(menu)

    async def webhook(self) -> WebhookState:
        return self.state

    async def drop_webhook(self) -> None:
        self.dropped += 1
        self.state = WebhookState("", self.state.pending_updates)


def test_the_menus_cover_everyone_groups_and_each_admin_in_every_translated_language() -> None:
    shout = {"es": str.upper}
    menus = command_menus([7, 3], shout)
    where = [(m.scope, m.chat_id, m.language) for m in menus]
    assert where == [
        ("default", None, ""),
        ("all_group_chats", None, ""),
        ("chat", 3, ""),
        ("chat", 7, ""),
        ("default", None, "es"),
        ("all_group_chats", None, "es"),
        ("chat", 3, "es"),
        ("chat", 7, "es"),
    ]
    assert [c.command for c in menus[0].commands] == list(EVERYONE)
    assert [c.command for c in menus[1].commands] == list(GROUPS)
    assert [c.command for c in menus[2].commands] == list(ADMINS)
    assert menus[4].commands[0].description == COMMAND_DESCRIPTIONS["help"].upper()


def test_the_menus_are_published_in_every_language_of_the_catalog() -> None:
    menus = command_menus([3], translations(languages()))
    everyone = {m.language: m.commands for m in menus if m.scope == "default"}
    assert sorted(everyone) == ["", "es", "ru"]
    assert everyone[""][0].description == "What I do, and how to ask"
    assert everyone["es"][0].description == "Qué hago y cómo pedírmelo"
    assert everyone["ru"][0].description == "Что я умею и как меня попросить"


def test_every_menu_line_is_what_telegram_accepts() -> None:
    for menu in command_menus([1], translations(languages())):
        for command in menu.commands:
            assert re.fullmatch(r"[a-z0-9_]{1,32}", command.command)
            assert 0 < len(command.description) <= 256


async def test_a_menu_telegram_refuses_is_logged_and_the_others_are_published(
    caplog: pytest.LogCaptureFixture,
) -> None:
    account = ScriptedAccount(refuse=frozenset({9}))
    caplog.set_level(logging.INFO, "vidrelay.startup")
    assert await publish_menus(account, command_menus([9])) == 2
    [refused] = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert (refused.__dict__["chat_id"], refused.__dict__["error"]) == (9, "400 Bad Request: chat not found")
    assert caplog.records[-1].getMessage() == "published 2 command menu(s) of 3"


async def test_a_webhook_left_behind_is_deleted_once_with_one_line_and_no_webhook_is_left_alone(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, "vidrelay.startup")
    clean = ScriptedAccount()
    await leave_webhook(clean)
    assert clean.dropped == 0
    assert caplog.records == []
    left = ScriptedAccount(WebhookState("https://bot.example.com/bot42:secret/hook", pending_updates=3))
    await leave_webhook(left)
    assert left.dropped == 1
    [line] = [r.getMessage() for r in caplog.records]
    assert "https://bot.example.com/…" in line
    assert "3 waiting update(s)" in line
    assert "secret" not in line


async def test_updates_are_fresh_within_the_window_and_stale_after_it_with_the_last_failure() -> None:
    clock = VirtualClock()
    freshness = UpdateFreshness(clock, stale_seconds=60)
    assert freshness.problem() is None  # not receiving yet: another rule speaks then
    freshness.started()
    await clock.advance(59)
    freshness.updates_failed("getUpdates failed: Cannot connect\nto host")
    assert freshness.problem() is None
    await clock.advance(2)
    assert freshness.problem() == (
        "no updates from Telegram for 61s (VIDRELAY_HEALTH_STALE_SECONDS=60):"
        " getUpdates failed: Cannot connect to host"
    )
    freshness.updates_received()
    assert freshness.problem() is None


async def test_the_webhook_watch_keeps_a_quiet_bot_fresh_and_says_when_telegram_cannot_deliver() -> None:
    clock = VirtualClock()
    freshness = UpdateFreshness(clock, stale_seconds=30)
    url = "https://bot.example.com/webhook"
    account = ScriptedAccount(WebhookState(url))
    freshness.started()
    watching = asyncio.ensure_future(watch_webhook(account, url, freshness, clock))
    try:
        await clock.advance(300)  # no request for five minutes: nothing waits, nothing is missed
        assert freshness.problem() is None
        account.state = WebhookState(url, 4, "Connection refused")
        await clock.advance(31)
        assert freshness.problem() is not None
        assert freshness.problem().endswith(  # type: ignore[union-attr]
            "Telegram cannot deliver to the webhook (4 update(s) waiting): Connection refused"
        )
        account.state = WebhookState("https://elsewhere.example.com/hook")
        await clock.advance(10)
        assert "no longer VIDRELAY_WEBHOOK_URL" in (freshness.problem() or "")
    finally:
        watching.cancel()
