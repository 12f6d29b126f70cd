"""TelegramMessenger: a real aiogram Bot talking HTTP to the fake Bot API on 127.0.0.1."""

from __future__ import annotations

import hashlib
import socket
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiogram import Bot
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
from adapters.telegram.flood import FloodControl
from adapters.telegram.messenger import TelegramMessenger, to_messenger_error
from adapters.telegram.session import make_bot
from core.telegram_errors import (
    ApiVerdict,
    classify_telegram,
    is_message_gone,
    is_not_modified,
    is_parse_error,
    is_wrong_file_id,
)
from ports.messenger import Button, MessengerError, StoredVideo, VideoFile, VideoMeta
from testkit.telegram import DEFAULT_TOKEN, Chat, FakeBotApi, User
from tests.support.pacing import UNPACED

ALICE = User(1337, "Alice", username="alice")
BOB = User(4242, "Bob")
PRIVATE = Chat.private(ALICE)
GROUP = Chat.group(-4001, "Friends")
UPGRADED = "Bad Request: group chat was upgraded to a supergroup chat"


@pytest.fixture
async def api() -> AsyncIterator[FakeBotApi]:
    async with FakeBotApi() as server:
        server.add_chat(PRIVATE)
        server.add_chat(GROUP)
        yield server


async def close(bot: Bot) -> None:
    """aiogram's close() waits 250 ms for TLS connections to wind down; loopback HTTP has none."""
    client = getattr(bot.session, "_session", None)
    if client is not None:
        await client.close()


async def _bot(api: FakeBotApi, *, local_mode: bool = False, max_retries: int = 3) -> Bot:
    return make_bot(
        DEFAULT_TOKEN,
        api.base_url,
        local_mode,
        flood=FloodControl(SystemClock(), UNPACED, max_retries=max_retries),
    )


@pytest.fixture
async def bot(api: FakeBotApi) -> AsyncIterator[Bot]:
    bot = await _bot(api)
    yield bot
    await close(bot)


@pytest.fixture
def messenger(bot: Bot) -> TelegramMessenger:
    return TelegramMessenger(bot, local_mode=False)


@pytest.fixture
def clip(tmp_path: Path) -> Path:
    path = tmp_path / "clip.mp4"
    path.write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(range(256)) * 40)
    return path


def tiny_jpeg(width: int, height: int) -> bytes:
    """The start of a baseline JPEG: SOI, an APP0 segment, then the frame header with its size."""
    app0 = b"\xff\xe0" + (16).to_bytes(2, "big") + b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    sof0 = (
        b"\xff\xc0" + (17).to_bytes(2, "big") + b"\x08" + height.to_bytes(2, "big") + width.to_bytes(2, "big")
    )
    return b"\xff\xd8" + app0 + sof0 + b"\x03\x01\x22\x00\x02\x11\x01\x03\x11\x01" + b"\xff\xd9"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


async def refused(call: object) -> MessengerError:
    assert hasattr(call, "__await__")
    with pytest.raises(MessengerError) as caught:
        await call  # type: ignore[misc]
    return caught.value


# -- texts


async def test_send_text_replies_silently_in_html_without_preview_and_returns_the_message_id(
    api: FakeBotApi, messenger: TelegramMessenger
) -> None:
    asked = api.send_text(PRIVATE, ALICE, "https://example.com/v")
    first = await messenger.send_text(PRIVATE.id, "🧐 <b>Scraping</b> URL...", reply_to=asked)
    second = await messenger.send_text(PRIVATE.id, "plain <not html>", html=False, silent=False)

    assert (first, second) == (asked + 1, asked + 2)
    log = api.message(PRIVATE.id, first)
    assert log is not None
    assert log.text == "🧐 Scraping URL..."
    assert log.entities == [{"type": "bold", "offset": 3, "length": 8}]
    assert log.reply_to == asked
    assert log.silent
    assert log.link_preview_disabled
    assert log.sources == ["🧐 <b>Scraping</b> URL..."]
    plain = api.message(PRIVATE.id, second)
    assert plain is not None
    assert plain.text == "plain <not html>"
    assert not plain.silent


async def test_send_text_with_a_keyboard_sends_the_buttons(
    api: FakeBotApi, messenger: TelegramMessenger
) -> None:
    keyboard = [[Button("👍 Yes please", callback_data="dl:1"), Button("👎 No thanks", callback_data="no:1")]]
    sent = await messenger.send_text(GROUP.id, "This video is pretty long (25m)", keyboard=keyboard)

    message = api.message(GROUP.id, sent)
    assert message is not None
    assert message.reply_markup == {
        "inline_keyboard": [
            [
                {"text": "👍 Yes please", "callback_data": "dl:1"},
                {"text": "👎 No thanks", "callback_data": "no:1"},
            ]
        ]
    }


async def test_edits_are_recorded_in_order_on_the_same_message(
    api: FakeBotApi, messenger: TelegramMessenger
) -> None:
    sent = await messenger.send_text(PRIVATE.id, "🧐 <b>Scraping</b> URL...")
    await messenger.edit_text(PRIVATE.id, sent, "🧐 <b>Scraping</b> URL...\n⬇️ <b>Downloading...</b>")
    await messenger.edit_text(
        PRIVATE.id, sent, "done", keyboard=[[Button("Source", url="https://example.com/v")]]
    )

    [message] = api.messages(PRIVATE.id)
    assert message.texts == ["🧐 Scraping URL...", "🧐 Scraping URL...\n⬇️ Downloading...", "done"]
    assert message.edits == 2
    assert message.reply_markup == {"inline_keyboard": [[{"text": "Source", "url": "https://example.com/v"}]]}


async def test_an_identical_edit_is_recognised_as_not_modified(
    api: FakeBotApi, messenger: TelegramMessenger
) -> None:
    sent = await messenger.send_text(PRIVATE.id, "<b>same</b>")

    error = await refused(messenger.edit_text(PRIVATE.id, sent, "<b>same</b>"))

    assert error.code == 400
    assert is_not_modified(error)
    assert not is_parse_error(error)


@pytest.mark.parametrize(
    ("html", "detail"),
    [
        ("<b>unclosed", 'Can\'t find end tag corresponding to start tag "b"'),
        ("<blink>x</blink>", 'Unsupported start tag "blink" at byte offset 0'),
        ("<b>x</i>", 'Unmatched end tag at byte offset 4, expected "</b>", found "</i>"'),
        ("1 < 2", 'Unsupported start tag "" at byte offset 2'),
    ],
)
async def test_bad_html_is_recognised_as_a_parse_error(
    messenger: TelegramMessenger, html: str, detail: str
) -> None:
    error = await refused(messenger.send_text(PRIVATE.id, html))

    assert error.code == 400
    assert error.description == f"Bad Request: can't parse entities: {detail}"
    assert is_parse_error(error)


async def test_editing_a_message_the_user_deleted_is_recognised_as_gone(
    api: FakeBotApi, messenger: TelegramMessenger
) -> None:
    sent = await messenger.send_text(PRIVATE.id, "⬇️ Downloading...")
    api.delete_message(PRIVATE.id, sent)

    error = await refused(messenger.edit_text(PRIVATE.id, sent, "🚀 Uploading..."))

    assert error.description == "Bad Request: message to edit not found"
    assert is_message_gone(error)


async def test_delete_message_removes_it_and_a_second_delete_is_refused(
    api: FakeBotApi, messenger: TelegramMessenger
) -> None:
    sent = await messenger.send_text(GROUP.id, "prompt")
    await messenger.delete_message(GROUP.id, sent)

    error = await refused(messenger.delete_message(GROUP.id, sent))

    assert api.messages(GROUP.id) == []
    message = api.message(GROUP.id, sent)
    assert message is not None
    assert message.deleted_by_bot
    assert (error.code, error.description) == (400, "Bad Request: message to delete not found")


async def test_a_reply_to_a_deleted_message_is_sent_unthreaded(
    api: FakeBotApi, messenger: TelegramMessenger
) -> None:
    asked = api.send_text(GROUP, BOB, "example.com/v")
    api.delete_message(GROUP.id, asked)

    message_id = await messenger.send_text(GROUP.id, "reply", reply_to=asked)

    sent = api.message(GROUP.id, message_id)
    assert sent is not None
    assert sent.text == "reply"
    assert sent.reply_to is None


async def test_a_text_over_4096_characters_is_refused(messenger: TelegramMessenger) -> None:
    await messenger.send_text(PRIVATE.id, "x" * 4096)

    error = await refused(messenger.send_text(PRIVATE.id, "x" * 4097))

    assert (error.code, error.description) == (400, "Bad Request: message is too long")


# -- videos


async def test_send_video_uploads_the_bytes_with_the_video_attributes(
    api: FakeBotApi, messenger: TelegramMessenger, clip: Path
) -> None:
    asked = api.send_text(PRIVATE, ALICE, "https://example.com/v")

    sent = await messenger.send_video(
        PRIVATE.id, VideoFile(clip), VideoMeta(duration=7, width=640, height=360), reply_to=asked
    )

    [video] = api.videos(PRIVATE.id)
    assert video.sha256 == sha256(clip)
    assert video.size == len(clip.read_bytes())  # noqa: ASYNC240 - a small test file
    assert video.source == "upload"
    assert (video.duration, video.width, video.height) == (7, 640, 360)
    assert video.supports_streaming
    assert video.silent
    assert video.reply_to == asked
    assert video.caption is None
    assert (sent.message_id, sent.file_id, sent.file_unique_id) == (
        video.message_id,
        video.file_id,
        video.file_unique_id,
    )
    assert api.calls_of("sendVideo")[0].files == {"video": video.sha256}


async def test_a_stored_file_id_sends_the_same_video_without_uploading(
    api: FakeBotApi, messenger: TelegramMessenger, clip: Path
) -> None:
    first = await messenger.send_video(
        PRIVATE.id, VideoFile(clip), VideoMeta(duration=7, width=640, height=360)
    )

    again = await messenger.send_video(
        GROUP.id, StoredVideo(first.file_id), VideoMeta(caption="<b>A title</b> &amp; more")
    )

    uploaded, reused = api.videos()
    assert reused.source == "file_id"
    assert not reused.uploaded
    assert reused.sha256 == uploaded.sha256 == sha256(clip)
    assert reused.caption == "A title & more"
    assert again.file_unique_id == first.file_unique_id
    assert api.calls_of("sendVideo")[1].files == {}


async def test_a_wrong_file_id_is_recognised(
    api: FakeBotApi, messenger: TelegramMessenger, clip: Path
) -> None:
    sent = await messenger.send_video(PRIVATE.id, VideoFile(clip), VideoMeta())
    api.forget_file(sent.file_id)

    unknown = await refused(
        messenger.send_video(PRIVATE.id, StoredVideo("BAACAgIAAxkBAAIbogus"), VideoMeta())
    )
    forgotten = await refused(messenger.send_video(PRIVATE.id, StoredVideo(sent.file_id), VideoMeta()))

    for error in (unknown, forgotten):
        assert (error.code, error.description) == (
            400,
            "Bad Request: wrong file identifier/HTTP URL specified",
        )
        assert is_wrong_file_id(error)
    assert len(api.videos()) == 1


async def test_local_mode_passes_a_file_uri_and_the_server_reads_the_bytes_from_disk(clip: Path) -> None:
    async with FakeBotApi(local_mode=True) as api:
        api.add_chat(PRIVATE)
        bot = await _bot(api, local_mode=True)
        try:
            sent = await TelegramMessenger(bot, local_mode=True).send_video(
                PRIVATE.id, VideoFile(clip), VideoMeta(duration=3, width=320, height=240)
            )
        finally:
            await close(bot)

    [video] = api.videos()
    assert video.source == "path"
    assert video.sha256 == sha256(clip)
    assert video.file_id == sent.file_id
    [call] = api.calls_of("sendVideo")
    assert call.params["video"] == clip.resolve().as_uri()  # noqa: ASYNC240 - no I/O in practice


async def test_a_thumbnail_goes_with_the_video_as_an_upload(
    api: FakeBotApi, messenger: TelegramMessenger, clip: Path, tmp_path: Path
) -> None:
    thumb = tmp_path / "thumb.jpg"
    thumb.write_bytes(tiny_jpeg(320, 180))

    await messenger.send_video(PRIVATE.id, VideoFile(clip), VideoMeta(duration=2, thumbnail=thumb))

    [video] = api.videos(PRIVATE.id)
    assert video.thumbnail is not None
    assert (video.thumbnail.width, video.thumbnail.height) == (320, 180)
    assert video.thumbnail.sha256 == sha256(thumb)
    assert video.thumbnail.valid
    assert api.calls_of("sendVideo")[0].files == {"video": video.sha256, "thumbnail": sha256(thumb)}


async def test_local_mode_uploads_the_thumbnail_beside_the_video_path(clip: Path, tmp_path: Path) -> None:
    thumb = tmp_path / "thumb.jpg"
    thumb.write_bytes(tiny_jpeg(160, 120))
    async with FakeBotApi(local_mode=True) as api:
        api.add_chat(PRIVATE)
        bot = await _bot(api, local_mode=True)
        try:
            await TelegramMessenger(bot, local_mode=True).send_video(
                PRIVATE.id, VideoFile(clip), VideoMeta(thumbnail=thumb)
            )
        finally:
            await close(bot)

    [video] = api.videos()
    assert video.source == "path"
    assert video.thumbnail is not None
    assert video.thumbnail.valid


async def test_a_video_by_file_id_carries_no_thumbnail(
    api: FakeBotApi, messenger: TelegramMessenger, clip: Path
) -> None:
    sent = await messenger.send_video(PRIVATE.id, VideoFile(clip), VideoMeta())
    await messenger.send_video(PRIVATE.id, StoredVideo(sent.file_id), VideoMeta())
    assert [v.thumbnail for v in api.videos(PRIVATE.id)] == [None, None]


async def test_a_cloud_server_refuses_a_file_path(clip: Path, messenger: TelegramMessenger) -> None:
    cloud_with_local_config = TelegramMessenger(messenger._bot, local_mode=True)

    error = await refused(cloud_with_local_config.send_video(PRIVATE.id, VideoFile(clip), VideoMeta()))

    assert is_wrong_file_id(error)


async def test_a_file_over_the_upload_limit_is_refused_as_too_large(clip: Path) -> None:
    async with FakeBotApi(upload_limit=1000) as api:
        api.add_chat(PRIVATE)
        bot = await _bot(api)
        try:
            error = await refused(
                TelegramMessenger(bot, False).send_video(PRIVATE.id, VideoFile(clip), VideoMeta())
            )
        finally:
            await close(bot)

    assert error.code == 413
    assert "Request Entity Too Large" in error.description
    assert api.videos() == []


# -- reactions, callbacks, inline


async def test_react_sets_an_allowed_emoji_and_an_unknown_one_is_refused(
    api: FakeBotApi, messenger: TelegramMessenger
) -> None:
    asked = api.send_text(GROUP, BOB, "https://example.com/broken")

    await messenger.react(GROUP.id, asked, "😢")
    error = await refused(messenger.react(GROUP.id, asked, "🦖"))

    [reaction] = api.reactions(GROUP.id)
    assert (reaction.message_id, reaction.emojis) == (asked, ("😢",))
    assert (error.code, error.description) == (400, "Bad Request: REACTION_INVALID")


async def test_answer_callback_is_recorded_once_and_a_second_answer_is_refused(
    api: FakeBotApi, messenger: TelegramMessenger
) -> None:
    prompt = await messenger.send_text(
        GROUP.id, "long?", keyboard=[[Button("👍 Yes please", callback_data="dl:1")]]
    )
    query = api.press_button(GROUP, BOB, prompt, "dl:1")

    await messenger.answer_callback(query, "Starting download...")
    error = await refused(messenger.answer_callback(query, "again"))

    answer = api.callback_answer(query)
    assert answer is not None
    assert answer.text == "Starting download..."
    assert "query is too old" in error.description


async def test_edit_inline_video_swaps_the_media_of_the_chosen_result(
    api: FakeBotApi, messenger: TelegramMessenger, clip: Path
) -> None:
    cached = await messenger.send_video(GROUP.id, VideoFile(clip), VideoMeta())
    inline_id = api.choose_inline_result(ALICE, "0", query="https://example.com/v")
    keyboard = [[Button("Source", url="https://example.com/v")]]

    await messenger.edit_inline_video(
        inline_id,
        cached.file_id,
        VideoMeta(duration=7, width=640, height=360, caption="A title"),
        keyboard=keyboard,
    )

    [edit] = api.media_edits
    assert edit.inline_message_id == inline_id
    assert edit.file.file_id == cached.file_id
    assert edit.file.sha256 == sha256(clip)
    assert edit.media["caption"] == "A title"
    assert edit.media["supports_streaming"] is True
    assert edit.reply_markup == {"inline_keyboard": [[{"text": "Source", "url": "https://example.com/v"}]]}


async def test_edit_inline_video_with_an_unknown_file_id_is_a_wrong_file_id(
    api: FakeBotApi, messenger: TelegramMessenger
) -> None:
    inline_id = api.choose_inline_result(ALICE, "0")

    error = await refused(messenger.edit_inline_video(inline_id, "BAACAgIAAxkBAAIbogus", VideoMeta()))

    assert is_wrong_file_id(error)
    assert api.media_edits == []


# -- error mapping and classification


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
    bot = await _bot(api, max_retries=0)
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


_METHOD = SendMessage(chat_id=PRIVATE.id, text="x")


@pytest.mark.parametrize(
    ("raised", "code", "description", "verdict"),
    [
        (
            TelegramBadRequest(_METHOD, "Bad Request: chat not found"),
            400,
            "Bad Request: chat not found",
            "permanent",
        ),
        (TelegramUnauthorizedError(_METHOD, "Unauthorized"), 401, "Unauthorized", "permanent"),
        (TelegramForbiddenError(_METHOD, "Forbidden: x"), 403, "Forbidden: x", "permanent"),
        (TelegramNotFound(_METHOD, "Not Found"), 404, "Not Found", "permanent"),
        (TelegramConflictError(_METHOD, "Conflict: x"), 409, "Conflict: x", "permanent"),
        (
            TelegramEntityTooLarge(_METHOD, "Request Entity Too Large"),
            413,
            "Request Entity Too Large",
            "permanent",
        ),
        (
            TelegramRetryAfter(_METHOD, "Too Many Requests: retry after 9", 9),
            429,
            "Too Many Requests: retry after 9",
            "retry_after",
        ),
        (TelegramServerError(_METHOD, "Internal Server Error"), 500, "Internal Server Error", "transient"),
        (
            RestartingTelegram(_METHOD, "Service Unavailable: restart"),
            500,
            "Service Unavailable: restart",
            "transient",
        ),
        (
            TelegramNetworkError(_METHOD, "ClientConnectorError: refused"),
            None,
            "ClientConnectorError: refused",
            "transient",
        ),
        (TelegramAPIError(_METHOD, "I'm a teapot"), None, "I'm a teapot", "transient"),
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
    raised = TelegramMigrateToChat(_METHOD, UPGRADED, -100777)

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
