"""The bot's conversations, one router each, in the order aiogram tries them."""

from __future__ import annotations

from aiogram import Router

from entrypoints.bot.handlers import audio, cancel, commands, confirmations, errors, inline, links, settings


def setup() -> Router:
    router = Router(name="vidrelay")
    # Commands before links: a command's text is a message too, and the link handler takes every
    # message. Settings before confirmations: the confirmations take every press nobody claimed.
    router.include_routers(
        commands.setup(),
        cancel.setup(),
        settings.setup(),
        audio.setup(),
        links.setup(),
        confirmations.setup(),
        inline.setup(),
        errors.setup(),
    )
    return router
