"""One chat's log messages, delivered by one task: the latest state of each, when it is due and
Telegram's pacing lets it go without taking a video's turn.

The task exists while something in the chat waits to be shown and ends when nothing does, so an
idle chat costs nothing. It makes one call at a time (a chat takes about one message a second
anyway); the job that wrote the state never waits for it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from core.log_message.delivery import Silenced, deliver
from core.log_message.view import LogView
from ports.clock import Clock
from ports.messenger import Keyboard, Messenger, MessengerError
from ports.pacing import SendPacing

log = logging.getLogger("vidrelay.log_message")

EDIT_INTERVAL_SECONDS = 3.0
"""The log message is edited at most this often while its job runs (its first and last text go at once)."""
_RESOLUTION_SECONDS = 0.001
"""The shortest sleep: a wait of 1e-12 s (float arithmetic) would wake to the same instant forever."""


class ChatSender:
    def __init__(
        self,
        chat_id: int,
        views: Callable[[], list[LogView]],
        messenger: Messenger,
        clock: Clock,
        pacing: SendPacing,
    ) -> None:
        self.chat_id = chat_id
        self._views = views
        self._messenger = messenger
        self._clock = clock
        self._pacing = pacing
        self._changed = asyncio.Event()

    def wake(self) -> None:
        self._changed.set()

    async def run(self) -> None:
        """Until nothing in the chat waits to be shown."""
        while True:
            self._changed.clear()
            pending = [v for v in self._views() if v.pending]
            if not pending:
                return
            view = min(pending, key=LogView.due_at)
            now = self._clock.now()
            wait = max(view.due_at() - now, self._pacing.wait_seconds(self.chat_id, view.turn))
            if wait > 0:
                await self._until_changed(max(wait, _RESOLUTION_SECONDS))
                continue
            await self._deliver(view)

    async def _deliver(self, view: LogView) -> None:
        landed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        view.in_flight = landed
        version, text = view.version, view.render()
        had = list(view.state.message_ids)
        try:
            keyboard = await _keyboard(view)
            await deliver(
                self._messenger, self._clock, view.to, view.state, text, keyboard, lambda: view.may_speak
            )
        except Silenced:
            view.abandon()
        except MessengerError as error:
            # Given up on this text; the next change of the view tries again.
            log.warning("log message not delivered", exc_info=error, extra={"chat_id": self.chat_id})
        finally:
            view.in_flight = None
            view.delivered(version, self._clock.now(), EDIT_INTERVAL_SECONDS)
            landed.set_result(None)
        if view.state.message_ids != had and view.persist is not None:
            await _persist(view)

    async def _until_changed(self, seconds: float) -> None:
        waits = [
            asyncio.ensure_future(self._changed.wait()),
            asyncio.ensure_future(self._clock.sleep(seconds)),
        ]
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in waits:
                task.cancel()


async def _keyboard(view: LogView) -> Keyboard | None:
    """The buttons for this delivery: once the message exists, while the job is live and its
    owner may speak (signing them is a store call, for nothing when the text cannot go)."""
    if view.buttons is None or view.closed or not view.state.message_ids or not view.may_speak:
        return None
    try:
        return await view.buttons(view.state.message_ids[0])
    except Exception:  # a log without its button is still the log
        log.warning("log message buttons not signed", exc_info=True, extra={"chat_id": view.to.chat_id})
        return None


async def _persist(view: LogView) -> None:
    assert view.persist is not None
    try:
        await view.persist(view.state)
    except Exception:  # a lost message id costs a second log message, never the job
        log.warning("log message id not saved", exc_info=True, extra={"chat_id": view.to.chat_id})
