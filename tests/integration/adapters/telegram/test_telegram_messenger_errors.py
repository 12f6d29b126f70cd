"""Telegram's refusals as MessengerErrors the core can classify: permanent, transient, flood
control with its retry-after, a migration with its new chat id, no server at all."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from aiogram.exceptions import (
    AiogramError,
    ClientDecodeError,
    RestartingTelegram,
    TelegramAPIError,
    TelegramBadRequest,
    TelegramConflictError,
    TelegramEntityTooLarge,
    TelegramForbiddenError,
    TelegramMigrateToChat,
    TelegramNetworkError,
    TelegramNotFound,
    TelegramRetryAfter,
    TelegramServerError,
    TelegramUnauthorizedError,
)
from aiogram.methods import SendMessage

from adapters.system.clock import SystemClock
from adapters.telegram.errors import to_messenger_error
from adapters.telegram.flood import FloodControl
from adapters.telegram.messenger import TelegramMessenger
from adapters.telegram.session import make_bot
from core.telegram_errors import (
    ApiVerdict,
    classify_telegram,
)
from ports.messenger import VideoFile, VideoMeta
from testkit.telegram import DEFAULT_TOKEN, Chat, FakeBotApi, User
from tests.support.pacing import UNPACED
from tests.support.people import ALICE, BOB, GROUP, PRIVATE
from tests.support.telegram_bots import bot_on, close, refused

UPGRADED = "Bad Request: group chat was upgraded to a supergroup chat"
METHOD = SendMessage(chat_id=PRIVATE.id, text="x")


async def test_an_unknown_chat_is_permanent(messenger: TelegramMessenger) -> None:
    error = await refused(messenger.send_text(999_999, "hello"))

    assert (error.code, error.description) == (400, "Bad Request: chat not found")
    assert classify_telegram(error) is ApiVerdict.PERMANENT


@pytest.mark.parametrize(
    ("chat", "description"),
    [
        (PRIVATE, "Forbidden: bot was blocked by the user"),
        (GROUP, "Forbidden: bot was kicked from the group chat"),
    ],
)
async def test_a_blocked_chat_is_permanent(
    api: FakeBotApi, messenger: TelegramMessenger, chat: Chat, description: str
) -> None:
    api.block_chat(chat.id)

    error = await refused(messenger.send_text(chat.id, "hello"))

    assert (error.code, error.description) == (403, description)
    assert classify_telegram(error) is ApiVerdict.PERMANENT


async def test_429_beyond_the_retries_reaches_the_caller_with_retry_after(
    api: FakeBotApi, clip: Path
) -> None:
    bot = await bot_on(api, max_retries=0)
    try:
        api.fail_next("sendVideo", code=429, retry_after=7)
        error = await refused(
            TelegramMessenger(bot, False).send_video(PRIVATE.id, VideoFile(clip), VideoMeta())
        )
    finally:
        await close(bot)

    assert error.code == 429
    assert error.retry_after == 7
    assert error.description == "Too Many Requests: retry after 7"
    assert classify_telegram(error) is ApiVerdict.RETRY_AFTER


@pytest.mark.parametrize("code", [500, 502, 503])
async def test_server_errors_are_transient(api: FakeBotApi, messenger: TelegramMessenger, code: int) -> None:
    api.fail_next("sendMessage", code=code)

    error = await refused(messenger.send_text(PRIVATE.id, "hello"))

    assert error.code is not None
    assert error.code >= 500
    assert classify_telegram(error) is ApiVerdict.TRANSIENT
    assert await messenger.send_text(PRIVATE.id, "hello") > 0


async def test_no_server_at_all_is_a_transient_error_without_a_code() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    bot = make_bot(
        DEFAULT_TOKEN, f"http://127.0.0.1:{port}", False, flood=FloodControl(SystemClock(), UNPACED)
    )
    try:
        error = await refused(TelegramMessenger(bot, False).send_text(PRIVATE.id, "hello"))
    finally:
        await close(bot)

    assert error.code is None
    assert classify_telegram(error) is ApiVerdict.TRANSIENT


async def test_a_migrated_group_names_its_new_chat_id(api: FakeBotApi, messenger: TelegramMessenger) -> None:
    api.migrate_group(GROUP.id, -1001234567890)

    error = await refused(messenger.send_text(GROUP.id, "hello"))

    assert error.code == 400
    assert error.description == UPGRADED
    assert error.migrate_to_chat_id == -1001234567890
    assert await messenger.send_text(-1001234567890, "hello") > 0


async def test_a_members_status_is_what_the_chat_says_of_them(
    api: FakeBotApi, messenger: TelegramMessenger
) -> None:
    api.add_chat(GROUP)
    statuses = {ALICE: "creator", BOB: "administrator", User(7): "restricted", User(8): "kicked"}
    for user, status in statuses.items():
        api.set_member_status(GROUP, user, status)

    seen = [await messenger.member_status(GROUP.id, user_id) for user_id in (ALICE.id, BOB.id, 7, 8, 9)]

    assert seen == ["creator", "administrator", "restricted", "kicked", "member"]
    error = await refused(messenger.member_status(-4999, ALICE.id))
    assert (error.code, error.description) == (400, "Bad Request: chat not found")


async def test_a_revoked_token_is_permanent(api: FakeBotApi) -> None:
    bot = make_bot("987654321:RevokedToken", api.base_url, False, flood=FloodControl(SystemClock(), UNPACED))
    try:
        error = await refused(TelegramMessenger(bot, False).send_text(PRIVATE.id, "hello"))
    finally:
        await close(bot)

    assert (error.code, error.description) == (401, "Unauthorized")
    assert classify_telegram(error) is ApiVerdict.PERMANENT


@pytest.mark.parametrize(
    ("raised", "code", "description", "verdict"),
    [
        (
            TelegramBadRequest(METHOD, "Bad Request: chat not found"),
            400,
            "Bad Request: chat not found",
            "permanent",
        ),
        (TelegramUnauthorizedError(METHOD, "Unauthorized"), 401, "Unauthorized", "permanent"),
        (TelegramForbiddenError(METHOD, "Forbidden: x"), 403, "Forbidden: x", "permanent"),
        (TelegramNotFound(METHOD, "Not Found"), 404, "Not Found", "permanent"),
        (TelegramConflictError(METHOD, "Conflict: x"), 409, "Conflict: x", "permanent"),
        (
            TelegramEntityTooLarge(METHOD, "Request Entity Too Large"),
            413,
            "Request Entity Too Large",
            "permanent",
        ),
        (
            TelegramRetryAfter(METHOD, "Too Many Requests: retry after 9", 9),
            429,
            "Too Many Requests: retry after 9",
            "retry_after",
        ),
        (TelegramServerError(METHOD, "Internal Server Error"), 500, "Internal Server Error", "transient"),
        (
            RestartingTelegram(METHOD, "Service Unavailable: restart"),
            500,
            "Service Unavailable: restart",
            "transient",
        ),
        (
            TelegramNetworkError(METHOD, "ClientConnectorError: refused"),
            None,
            "ClientConnectorError: refused",
            "transient",
        ),
        (TelegramAPIError(METHOD, "I'm a teapot"), None, "I'm a teapot", "transient"),
        (ClientDecodeError("Failed to decode object", ValueError("x"), "<html>"), None, None, "transient"),
    ],
)
def test_every_aiogram_error_maps_to_a_messenger_error(
    raised: AiogramError, code: int | None, description: str | None, verdict: str
) -> None:
    error = to_messenger_error(raised)

    assert error.code == code
    if description is not None:
        assert error.description == description
    assert classify_telegram(error).value == verdict


def test_a_migration_error_keeps_telegrams_text_and_the_new_chat_id() -> None:
    raised = TelegramMigrateToChat(METHOD, UPGRADED, -100777)

    error = to_messenger_error(raised)

    assert (error.code, error.migrate_to_chat_id) == (400, -100777)
    assert error.description == UPGRADED


async def test_a_video_file_gone_before_the_upload_is_a_messenger_error_without_the_token(
    messenger: TelegramMessenger, tmp_path: Path
) -> None:
    error = await refused(messenger.send_video(PRIVATE.id, VideoFile(tmp_path / "gone.mp4"), VideoMeta()))

    assert error.code is None  # no answer: transient
    assert DEFAULT_TOKEN not in error.description
    assert DEFAULT_TOKEN not in str(error)
