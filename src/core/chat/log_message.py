"""The one message per job that a private chat sees, edited as the job moves.

Every attempt of a job appends to the same message (its ids and text travel in the job's
payload), so ⚠️ retry lines and the final 💥 stay visible together. Delivery is forgiving:
"message is not modified" counts as delivered, a chunk Telegram cannot parse is resent as plain
text, flood control and server errors are waited out, and a log message the user deleted is
replaced by a fresh reply.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from typing import Protocol

from core.chat.html_chunks import split_html, strip_tags
from core.telegram_errors import (
    ApiVerdict,
    classify_telegram,
    is_message_gone,
    is_not_modified,
    is_parse_error,
)
from ports.clock import Clock
from ports.json import JsonValue, Payload
from ports.messenger import Messenger, MessengerError

log = logging.getLogger("vidrelay.log_message")

PROGRESS_INTERVAL_SECONDS = 3.0
_PASSES = 3
_MAX_WAIT_SECONDS = 30.0


@dataclass
class LogState:
    message_ids: list[int] = field(default_factory=list)
    text: str = ""
    delivered: list[str] = field(default_factory=list)

    def to_json(self) -> Payload:
        return {"message_ids": list(self.message_ids), "text": self.text, "delivered": list(self.delivered)}

    @classmethod
    def from_json(cls, value: JsonValue) -> LogState:
        if not isinstance(value, dict):
            return cls()
        ids, text, delivered = value.get("message_ids"), value.get("text"), value.get("delivered")
        return cls(
            [i for i in ids if isinstance(i, int)] if isinstance(ids, list) else [],
            text if isinstance(text, str) else "",
            [d for d in delivered if isinstance(d, str)] if isinstance(delivered, list) else [],
        )


class JobLog(Protocol):
    """What a job reports through: a LogMessage in private chats, a SilentLog in groups."""

    @property
    def state(self) -> LogState: ...

    def append(self, html: str) -> None: ...

    def progress(self, html: str) -> None: ...

    async def flush(self) -> None: ...

    async def close(self) -> None: ...


class SilentLog:
    """Groups get no progress messages."""

    def __init__(self, state: LogState | None = None) -> None:
        self._state = state or LogState()

    @property
    def state(self) -> LogState:
        return self._state

    def append(self, html: str) -> None:
        return None

    def progress(self, html: str) -> None:
        return None

    async def flush(self) -> None:
        return None

    async def close(self) -> None:
        return None


class LogMessage:
    def __init__(
        self,
        messenger: Messenger,
        clock: Clock,
        chat_id: int,
        reply_to: int | None,
        state: LogState | None = None,
    ) -> None:
        self._messenger = messenger
        self._clock = clock
        self._chat_id = chat_id
        self._reply_to = reply_to
        self._state = state or LogState()
        self._tail = ""
        self._lock = asyncio.Lock()
        self._last_progress_flush = float("-inf")
        self._background: set[asyncio.Task[None]] = set()

    @property
    def state(self) -> LogState:
        return self._state

    def append(self, html: str) -> None:
        """Add a lasting line; the progress tail is dropped (a new stage began)."""
        self._state.text += html
        self._tail = ""

    def progress(self, html: str) -> None:
        """Replace the ephemeral progress line; delivered at most every few seconds."""
        self._tail = html
        now = self._clock.now()
        if now - self._last_progress_flush >= PROGRESS_INTERVAL_SECONDS:
            self._last_progress_flush = now
            task = asyncio.ensure_future(self.flush())
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    async def flush(self) -> None:
        """Deliver the text now. A log that cannot be delivered never fails the job: logged only."""
        async with self._lock:
            try:
                await self._deliver(self._state.text + (f"\n{self._tail}" if self._tail else ""))
            except MessengerError as error:
                log.warning(
                    "log message not delivered: %s", error.description, extra={"chat_id": self._chat_id}
                )

    async def close(self) -> None:
        for task in list(self._background):
            task.cancel()
        for task in list(self._background):
            with contextlib.suppress(BaseException):
                await task
        await self.flush()

    async def _deliver(self, text: str) -> None:
        if not text.strip():
            return
        chunks = split_html(text)
        for index, chunk in enumerate(chunks):
            if index < len(self._state.delivered) and self._state.delivered[index] == chunk:
                continue
            await self._deliver_chunk(index, chunk)

    async def _deliver_chunk(self, index: int, chunk: str) -> None:
        html = True
        for attempt in range(_PASSES):
            try:
                await self._send_or_edit(index, chunk, html)
            except MessengerError as error:
                if is_not_modified(error):
                    self._remember(index, chunk)
                    return
                if is_parse_error(error) and html:
                    html, chunk = False, strip_tags(chunk)
                    continue
                if is_message_gone(error) and index < len(self._state.message_ids):
                    del self._state.message_ids[index:]
                    del self._state.delivered[index:]
                    continue
                if attempt + 1 == _PASSES or classify_telegram(error) is ApiVerdict.PERMANENT:
                    raise
                await self._clock.sleep(min(error.retry_after or 0.5 * (attempt + 1), _MAX_WAIT_SECONDS))
            else:
                self._remember(index, chunk)
                return

    async def _send_or_edit(self, index: int, chunk: str, html: bool) -> None:
        if index < len(self._state.message_ids):
            await self._messenger.edit_text(self._chat_id, self._state.message_ids[index], chunk, html=html)
            return
        message_id = await self._messenger.send_text(self._chat_id, chunk, reply_to=self._reply_to, html=html)
        self._state.message_ids.append(message_id)

    def _remember(self, index: int, chunk: str) -> None:
        if index < len(self._state.delivered):
            self._state.delivered[index] = chunk
        else:
            self._state.delivered.append(chunk)
