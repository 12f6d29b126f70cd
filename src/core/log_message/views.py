"""Every live log message of this process, by job, and the sender task of each chat that has one.

The intake opens a job's view when it accepts the link, so the log message goes out before any
worker is free; the worker that runs the job adopts the same view (or opens one from the job's
payload after a restart), so one message carries the job from `⏳ Queued` to the video. A view
is forgotten once it is closed and its last text delivered.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from functools import partial

from core.log_message.cancel_button import CancelButtons
from core.log_message.sender import EDIT_INTERVAL_SECONDS, ChatSender
from core.log_message.state import LogAddress, LogState
from core.log_message.view import Fence, LogView, Persist
from ports.clock import Clock
from ports.messenger import Messenger
from ports.pacing import SendPacing

log = logging.getLogger("vidrelay.log_message")


class LogViews:
    def __init__(
        self, messenger: Messenger, clock: Clock, pacing: SendPacing, buttons: CancelButtons | None = None
    ) -> None:
        """`buttons`: the 🚫 Cancel button under every live log message (None: no buttons)."""
        self._messenger = messenger
        self._clock = clock
        self._pacing = pacing
        self._buttons = buttons
        self._chats: dict[int, dict[int, LogView]] = {}
        """chat id → job id → view."""
        self._senders: dict[int, asyncio.Task[None]] = {}
        self._wakes: dict[int, ChatSender] = {}

    def open(
        self,
        job_id: int,
        to: LogAddress,
        state: LogState,
        persist: Persist | None = None,
        *,
        cancel_label: str,
    ) -> LogView:
        """The job's view: the live one if this process has it, else a new one over `state`, its
        🚫 button saying `cancel_label` (in the chat's language)."""
        views = self._chats.setdefault(to.chat_id, {})
        view = views.get(job_id)
        if view is None or view.abandoned:
            view = views[job_id] = LogView(to, state, self._changed)
            view.persist = persist
            if self._buttons is not None:
                view.buttons = partial(self._buttons.keyboard, to.chat_id, job_id=job_id, label=cancel_label)
        return view

    @staticmethod
    def unshown(to: LogAddress, state: LogState) -> LogView:
        """A view nobody is shown (a group's): the job writes as anywhere, nothing is sent."""
        return LogView(to, state, None)

    def announce(self, job_id: int, to: LogAddress, first_text: str, *, cancel_label: str) -> None:
        """The link was accepted: its log message goes out now, before any worker is free. A
        worker that got to the job first has said more already; then this says nothing."""
        view = self.open(job_id, to, LogState(), cancel_label=cancel_label)
        if view.version == 0:
            view.stage(first_text)

    def adopt(
        self,
        job_id: int,
        to: LogAddress,
        state: LogState,
        persist: Persist,
        fence: Fence | None = None,
        *,
        cancel_label: str,
    ) -> LogView:
        """A worker starts the job: from now on the view is saved through the worker's `persist`
        and shown only while `fence` holds (the attempt still holds the job's lease), and its next
        intermediate text waits one interval (a job done by then shows none)."""
        view = self.open(job_id, to, state, cancel_label=cancel_label)
        view.persist = persist
        view.fence = fence
        view.quiet_until = self._clock.now() + EDIT_INTERVAL_SECONDS
        return view

    def job_showing(self, chat_id: int, message_id: int) -> int | None:
        """The job whose live log message in this chat is `message_id` (a reply to it names it)."""
        views = self._chats.get(chat_id, {})
        return next((job for job, view in views.items() if message_id in view.state.message_ids), None)

    @property
    def sending(self) -> bool:
        """Some chat's log has text on its way (a sender task is live): a job's last words may
        reach its chat after the job's row is gone."""
        return bool(self._senders)

    async def drain(self, timeout: float) -> None:
        """Shutdown: let what is on its way reach the chats, for at most `timeout` seconds."""
        tasks = list(self._senders.values())
        if not tasks:
            return
        waiting = asyncio.ensure_future(asyncio.wait(tasks))
        deadline = asyncio.ensure_future(self._clock.sleep(timeout))
        await asyncio.wait([waiting, deadline], return_when=asyncio.FIRST_COMPLETED)
        for task in [waiting, deadline, *tasks]:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task

    def _changed(self, view: LogView) -> None:
        chat_id = view.to.chat_id
        sender = self._wakes.get(chat_id)
        if sender is None:
            sender = self._wakes[chat_id] = ChatSender(
                chat_id, lambda: self._in_chat(chat_id), self._messenger, self._clock, self._pacing
            )
            task = self._senders[chat_id] = asyncio.create_task(sender.run(), name=f"vidrelay-log-{chat_id}")
            task.add_done_callback(lambda done: self._idle(chat_id, sender, done))
        sender.wake()

    def _in_chat(self, chat_id: int) -> list[LogView]:
        """The chat's live views; those closed and fully delivered are forgotten on the way."""
        views = self._chats.get(chat_id, {})
        for job_id in [j for j, v in views.items() if v.closed and not v.pending and v.in_flight is None]:
            del views[job_id]
        if not views:
            self._chats.pop(chat_id, None)
        return list(views.values())

    def _idle(self, chat_id: int, sender: ChatSender, done: asyncio.Task[None]) -> None:
        if not done.cancelled() and done.exception() is not None:
            log.error("log sender failed", exc_info=done.exception(), extra={"chat_id": chat_id})
        if self._wakes.get(chat_id) is sender:
            del self._wakes[chat_id], self._senders[chat_id]
        # A change that came after the sender's last look, while it was finishing.
        pending = [v for v in self._chats.get(chat_id, {}).values() if v.pending]
        if pending and not done.cancelled():
            self._changed(pending[0])
