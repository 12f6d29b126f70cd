"""Putting a log text into the chat, forgivingly: one message per chunk, each sent once, then edited.

"message is not modified" counts as delivered, a chunk Telegram cannot parse is resent as plain
text, flood control and server errors are waited out, and a log message the user deleted is
replaced by a fresh reply. What cannot be delivered raises MessengerError for the caller to log.
Before each call `may_speak` is asked (the job's fence): when it says no, Silenced is raised and
nothing more goes out.
"""

from __future__ import annotations

from collections.abc import Callable

from core.log_message.chunks import split_html, strip_tags
from core.log_message.state import LogAddress, LogState
from core.telegram_errors import (
    ApiVerdict,
    classify_telegram,
    is_message_gone,
    is_not_modified,
    is_parse_error,
)
from ports.clock import Clock
from ports.messenger import Keyboard, Messenger, MessengerError

_PASSES = 3
_MAX_WAIT_SECONDS = 30.0


class Silenced(Exception):
    """The view's owner may no longer speak for its job (`may_speak` said no)."""


def _always() -> bool:
    return True


async def deliver(
    messenger: Messenger,
    clock: Clock,
    to: LogAddress,
    state: LogState,
    text: str,
    keyboard: Keyboard | None = None,
    may_speak: Callable[[], bool] = _always,
) -> None:
    """Make the chat show `text`, recording message ids and delivered chunks in `state`;
    `keyboard` under the first message (an edit without it takes earlier buttons away).
    Silenced, and nothing sent, once `may_speak` says no (even when nothing would have changed:
    the caller learns the view is no longer its owner's to show)."""
    if not may_speak():
        raise Silenced
    if not text.strip():
        return
    for index, chunk in enumerate(split_html(text)):
        if index < len(state.delivered) and state.delivered[index] == chunk:
            continue
        first_keyboard = keyboard if index == 0 else None
        await _deliver_chunk(messenger, clock, to, state, index, chunk, first_keyboard, may_speak)


async def _deliver_chunk(
    messenger: Messenger,
    clock: Clock,
    to: LogAddress,
    state: LogState,
    index: int,
    chunk: str,
    keyboard: Keyboard | None,
    may_speak: Callable[[], bool],
) -> None:
    html = True
    for attempt in range(_PASSES):
        if not may_speak():
            raise Silenced
        try:
            await _send_or_edit(messenger, to, state, index, chunk, html, keyboard)
        except MessengerError as error:
            if is_not_modified(error):
                _remember(state, index, chunk)
                return
            if is_parse_error(error) and html:
                html, chunk = False, strip_tags(chunk)
                continue
            if is_message_gone(error) and index < len(state.message_ids):
                del state.message_ids[index:]
                del state.delivered[index:]
                continue
            if attempt + 1 == _PASSES or classify_telegram(error) is ApiVerdict.PERMANENT:
                raise
            await clock.sleep(min(error.retry_after or 0.5 * (attempt + 1), _MAX_WAIT_SECONDS))
        else:
            _remember(state, index, chunk)
            return


async def _send_or_edit(
    messenger: Messenger,
    to: LogAddress,
    state: LogState,
    index: int,
    chunk: str,
    html: bool,
    keyboard: Keyboard | None,
) -> None:
    if index < len(state.message_ids):
        await messenger.edit_text(to.chat_id, state.message_ids[index], chunk, html=html, keyboard=keyboard)
        return
    message_id = await messenger.send_text(to.chat_id, chunk, reply_to=to.reply_to, html=html)
    state.message_ids.append(message_id)


def _remember(state: LogState, index: int, chunk: str) -> None:
    if index < len(state.delivered):
        state.delivered[index] = chunk
    else:
        state.delivered.append(chunk)
