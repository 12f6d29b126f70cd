"""Start-up against a chat service that may not answer yet, and the bot's set-up there.

Telegram unreachable for a moment (DNS, a network blip, a 5xx, a flood wait) is no reason to
exit: ask again with a capped backoff, one log line per try, until it answers. A refusal (a
rejected token, a wrong API URL) will not change by asking again: it ends the start at once.
Once it answers, the bot publishes its command menus, and a poller removes a webhook left behind.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from returns.result import Failure, Result, Success

from core.lifecycle.retry_policy import Random, RetryPolicy, backoff_delay
from core.telegram_errors import ApiVerdict, classify_telegram
from ports.bot_account import BotAccount, CommandMenu
from ports.clock import Clock
from ports.messenger import MessengerError

log = logging.getLogger("vidrelay.startup")

STARTUP_BACKOFF = RetryPolicy(base_seconds=1.0, cap_seconds=30.0, jitter=0.25)


@dataclass(frozen=True, slots=True)
class Refused:
    """The chat service answered, and the answer was no."""

    error: MessengerError

    @property
    def unauthorized(self) -> bool:
        return self.error.code == 401

    def describe(self) -> str:
        code = f"{self.error.code} " if self.error.code is not None else ""
        return f"{code}{self.error.description}"


async def reach_chat_service(
    account: BotAccount, clock: Clock, random: Random, policy: RetryPolicy = STARTUP_BACKOFF
) -> Result[str, Refused]:
    """The bot's name once the service answers; Refused when it answers no. Asks forever otherwise:
    the caller stops it (a signal) by cancelling."""
    attempt = 1
    while True:
        try:
            return Success(await account.identify())
        except MessengerError as error:
            verdict = classify_telegram(error)
            if verdict is ApiVerdict.PERMANENT:
                return Failure(Refused(error))
            wait = _wait_after(error, verdict, attempt, policy, random)
            log.warning(
                "Telegram is not answering (try %d); next try in %.1fs",
                attempt,
                wait,
                extra={"error": _reason(error)},
            )
        await clock.sleep(wait)
        attempt += 1


def _wait_after(
    error: MessengerError, verdict: ApiVerdict, attempt: int, policy: RetryPolicy, random: Random
) -> float:
    if verdict is ApiVerdict.RETRY_AFTER and error.retry_after:
        return error.retry_after
    return backoff_delay(attempt, policy, random)


def _reason(error: MessengerError) -> str:
    text = " ".join(error.description.split())
    return f"{error.code} {text}" if error.code is not None else text


async def publish_menus(account: BotAccount, menus: Sequence[CommandMenu]) -> int:
    """Publish each menu; one the service refuses is logged and the start goes on (a menu is a
    convenience: the commands work without it). How many were published."""
    published = 0
    for menu in menus:
        try:
            await account.publish_commands(menu)
        except MessengerError as error:
            log.warning(
                "could not publish a command menu%s",
                " (an admin's menu needs them to have started a chat with the bot)" if menu.chat_id else "",
                extra={
                    "scope": menu.scope,
                    "chat_id": menu.chat_id,
                    "language": menu.language or None,
                    "error": _reason(error),
                },
            )
        else:
            published += 1
    log.info("published %d command menu(s) of %d", published, len(menus))
    return published


async def leave_webhook(account: BotAccount) -> None:
    """Polling and a webhook exclude each other: a webhook left behind (by `run --webhook`, or
    another deployment of the token) would answer every getUpdates with 409 Conflict. It is
    deleted; the updates waiting for it stay, and polling hands them out."""
    try:
        state = await account.webhook()
        if not state.url:
            return
        await account.drop_webhook()
    except MessengerError as error:
        log.warning("could not check for a webhook before polling", extra={"error": _reason(error)})
        return
    log.warning(
        "a webhook was set (to %s): deleted it to receive updates by polling; "
        "its %d waiting update(s) come by polling",
        _host_of(state.url),
        state.pending_updates,
    )


def _host_of(url: str) -> str:
    """Enough of a webhook URL to recognize it: its path may hold a secret (often the token)."""
    scheme, _, rest = url.partition("://")
    return f"{scheme}://{rest.split('/', 1)[0]}/…" if rest else "…"
