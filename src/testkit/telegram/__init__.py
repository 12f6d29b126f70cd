"""A fake Telegram Bot API server on 127.0.0.1 for the e2e tests and the offline demo.

The bot under test is pointed at `base_url` and talks HTTP to it exactly as to api.telegram.org:
`POST|GET {base}/bot{token}/{method}` with JSON, form-urlencoded or multipart bodies. The fake keeps
chats, messages, files and updates in memory, answers with real-looking objects and, where the
real API refuses a call, refuses it with the real `error_code` and wording — so the bot's error
handling is exercised against what Telegram actually says.

    async with FakeBotApi() as api:
        alice = User(1337, "Alice")
        api.send_text(Chat.private(alice), alice, "look https://example.com/v")
        await api.wait_for(lambda: api.videos(alice.id))

Faults: `fail_next(method, code=429, retry_after=1, times=2)`; a "user" deleting a message:
`delete_message(chat_id, message_id)`; a blocked chat: `block_chat(chat_id)`; an expired file_id:
`forget_file(file_id)`. Telegram's flood limits (one message a second per chat with short
bursts, 20 a minute per group, 30 a second overall, then 429 "Too Many Requests: retry after N"):
`FakeBotApi(flood_limits=FloodLimits())`, off by default. Every call is recorded (`calls`), with
query helpers for messages and their edit history, videos (albums too), documents, reactions,
callback and inline answers and media edits.

Where things are: `driver` (what tests do) and `inspection` (what they read) on top of `server`
(HTTP); `methods/` holds the Bot API methods by group over the `state` they share; `html` and
`entities` derive text entities as Telegram does; `errors` holds Telegram's wordings; `flood`
enforces the flood limits.
"""

from testkit.telegram.driver import FakeBotApi
from testkit.telegram.entities import find_entities
from testkit.telegram.errors import NOT_MODIFIED, QUERY_TOO_OLD, WRONG_FILE_ID, ApiError
from testkit.telegram.files import FileRecord
from testkit.telegram.flood import FloodLimits
from testkit.telegram.html import parse_html
from testkit.telegram.jpeg import Thumbnail
from testkit.telegram.messages import StoredMessage, Version
from testkit.telegram.people import Chat, User
from testkit.telegram.records import (
    CallbackAnswer,
    CallRecord,
    DocumentRecord,
    InlineAnswer,
    MediaEdit,
    ReactionRecord,
    VideoRecord,
)
from testkit.telegram.server import DEFAULT_TOKEN

__all__ = [
    "DEFAULT_TOKEN",
    "NOT_MODIFIED",
    "QUERY_TOO_OLD",
    "WRONG_FILE_ID",
    "ApiError",
    "CallRecord",
    "CallbackAnswer",
    "Chat",
    "DocumentRecord",
    "FakeBotApi",
    "FileRecord",
    "FloodLimits",
    "InlineAnswer",
    "MediaEdit",
    "ReactionRecord",
    "StoredMessage",
    "Thumbnail",
    "User",
    "Version",
    "VideoRecord",
    "find_entities",
    "parse_html",
]
