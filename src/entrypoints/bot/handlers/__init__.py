"""The bot's conversations, one router each, in the order aiogram tries them."""

from __future__ import annotations

from aiogram import Router

from entrypoints.bot.handlers import commands, confirmations, errors, inline, links


def setup() -> Router:
    router = Router(name="vidrelay")
    # Commands before links: a command's text is a message too, and the link handler takes every message.
    router.include_routers(
        commands.setup(), links.setup(), confirmations.setup(), inline.setup(), errors.setup()
    )
    return router
