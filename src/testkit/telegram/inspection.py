"""The test's read side of the fake: what the bot sent and did, and a wait until it has."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from testkit.telegram.files import FileRecord
from testkit.telegram.messages import InlineMessage, StoredMessage
from testkit.telegram.people import Chat
from testkit.telegram.records import (
    AudioRecord,
    CallbackAnswer,
    CallRecord,
    DocumentRecord,
    InlineAnswer,
    MediaEdit,
    ReactionRecord,
    VideoRecord,
)
from testkit.telegram.server import BotApiServer
from testkit.telegram.state import MenuKey

_MAX_WAIT_SECONDS = 120.0

T = TypeVar("T")


class InspectableBotApi(BotApiServer):
    @property
    def calls(self) -> list[CallRecord]:
        return list(self._state.journal.calls)

    def calls_of(self, method: str) -> list[CallRecord]:
        return [c for c in self._state.journal.calls if c.method.lower() == method.lower()]

    @property
    def too_many_requests(self) -> list[CallRecord]:
        """Every call answered 429 (by the flood limits or by `fail_next`)."""
        return [c for c in self._state.journal.calls if c.error_code == 429]

    def messages(
        self, chat_id: int, *, from_bot: bool | None = True, include_deleted: bool = False
    ) -> list[StoredMessage]:
        """Messages in a chat in order: the bot's by default, `from_bot=None` for everyone's."""
        return [
            m
            for m in self._state.messages.in_chat(chat_id)
            if (from_bot is None or m.from_bot == from_bot) and (include_deleted or not m.deleted)
        ]

    def message(self, chat_id: int, message_id: int) -> StoredMessage | None:
        return self._state.messages.get(chat_id, message_id)

    def uploaded_file(self, sha256: str) -> Path:
        """The bytes of an upload, kept when the fake was made with `keep_uploads`."""
        if self._keep is None:
            raise RuntimeError("this fake keeps no uploads: make it with keep_uploads=<folder>")
        path = self._keep / sha256
        if not path.is_file():
            raise KeyError(f"no upload with sha256 {sha256}")
        return path

    def videos(self, chat_id: int | None = None) -> list[VideoRecord]:
        """Every video sent, by sendVideo or in an album (see `media_group_id`)."""
        return [v for v in self._state.journal.videos if chat_id is None or v.chat_id == chat_id]

    def albums(self, chat_id: int | None = None) -> list[list[VideoRecord]]:
        """The videos sent as albums (sendMediaGroup), one list per album, in the order sent."""
        albums: dict[str, list[VideoRecord]] = {}
        for video in self.videos(chat_id):
            if video.media_group_id is not None:
                albums.setdefault(video.media_group_id, []).append(video)
        return list(albums.values())

    def documents(self, chat_id: int | None = None) -> list[DocumentRecord]:
        """Every document sent (sendDocument, or in an album of documents)."""
        return [d for d in self._state.journal.documents if chat_id is None or d.chat_id == chat_id]

    def audios(self, chat_id: int | None = None) -> list[AudioRecord]:
        """Every sendAudio that went through (as an audio, or filed as a document)."""
        return [a for a in self._state.journal.audios if chat_id is None or a.chat_id == chat_id]

    def reactions(self, chat_id: int | None = None) -> list[ReactionRecord]:
        return [r for r in self._state.journal.reactions if chat_id is None or r.chat_id == chat_id]

    @property
    def callback_answers(self) -> list[CallbackAnswer]:
        return list(self._state.journal.callback_answers)

    def callback_answer(self, callback_query_id: str) -> CallbackAnswer | None:
        answers = self._state.journal.callback_answers
        return next((a for a in answers if a.callback_query_id == callback_query_id), None)

    @property
    def inline_answers(self) -> list[InlineAnswer]:
        return list(self._state.journal.inline_answers)

    def inline_answer(self, inline_query_id: str) -> InlineAnswer | None:
        answers = self._state.journal.inline_answers
        return next((a for a in answers if a.inline_query_id == inline_query_id), None)

    def inline_message(self, inline_message_id: str) -> InlineMessage | None:
        """A message a user sent through inline mode, as it shows now."""
        return self._state.inline_messages.get(inline_message_id)

    @property
    def media_edits(self) -> list[MediaEdit]:
        return list(self._state.journal.media_edits)

    @property
    def chat_actions(self) -> list[tuple[int, str]]:
        return list(self._state.journal.chat_actions)

    def chat(self, chat_id: int) -> Chat:
        return self._state.chats[chat_id]

    def file(self, file_id: str) -> FileRecord | None:
        return self._state.files.get(file_id)

    def commands(
        self, scope: str = "default", *, chat_id: int | None = None, language: str = ""
    ) -> list[tuple[str, str]]:
        """The command menu set for a scope ("default", "all_group_chats", "chat"…) and language:
        (command, description) pairs, as a client shows them."""
        menu = self._state.menus.get(MenuKey(scope, chat_id, language), [])
        return [(c["command"], c["description"]) for c in menu]

    @property
    def polling(self) -> bool:
        """A getUpdates long poll is waiting right now (an update sent now is handed out at once)."""
        return self._state.updates.polling

    @property
    def pending_updates(self) -> int:
        """Updates not yet confirmed by the bot (getUpdates with a higher offset)."""
        return self._state.updates.pending

    async def wait_for(self, predicate: Callable[[], T], timeout: float = 10.0) -> T:
        """Wait until `predicate()` is truthy (re-checked after every call and update); return it.

        TimeoutError after `timeout` seconds, naming the last calls to help the failing test.
        """
        changes = self._state.changes
        deadline = asyncio.get_running_loop().time() + min(timeout, _MAX_WAIT_SECONDS)
        while True:
            change = changes.upcoming()
            value = predicate()
            if value:
                return value
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                raise TimeoutError(f"condition not met within {timeout} s; last calls: {self._last_calls()}")
            await changes.wait(change, remaining)

    def _last_calls(self) -> str:
        recent = self._state.journal.calls[-10:]
        return ", ".join(f"{c.method}{'' if c.ok else f' ({c.error_code})'}" for c in recent) or "none"
