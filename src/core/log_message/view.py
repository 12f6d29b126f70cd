"""A job's log message as a view of the job's state: the job writes, it never waits for the chat.

What the message shows is the lasting lines (`line`: the video info, ⚠️ retries, 💥, verbose
output — kept in the job's payload, so every attempt appends to the same message), then what the
job is doing now (`stage`, which replaces the stage before it and its progress), then that stage's
`progress`. Every write only changes the state and nudges the chat's sender (`sender.py`), which
delivers the latest text when it is due and Telegram's pacing allows; whatever changed meanwhile
is coalesced into that one call, so a stage that lasted 200 ms is never shown.

Adding a stage is one text in `core.texts` and one call: `view.stage(words.say(texts.CONVERTING))`,
then `view.progress(words.progress_line(p))` while it runs. Nothing else knows which stages exist.

The end: `settle(final)` closes the view with its last stage line (the video went out); `end()`
closes it with nothing more to show (the chat's last word is another message, e.g. "😞 Video too
large"). A closed view ignores every later write: nothing reaches the chat after the end.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from core.log_message.state import LogAddress, LogState
from ports.messenger import Keyboard
from ports.pacing import Turn

log = logging.getLogger("vidrelay.log_message")

Persist = Callable[[LogState], Awaitable[None]]
"""Saves the state into the job's row: the owner's way to keep a new message id across a crash."""
Buttons = Callable[[int], Awaitable[Keyboard]]
"""The buttons under the live message, signed for its message id (cancel_button.py)."""
Fence = Callable[[], bool]
"""Whether the worker that owns the view may still speak for its job (it holds the job's lease)."""


class LogView:
    def __init__(self, to: LogAddress, state: LogState, on_change: Callable[[LogView], None] | None) -> None:
        """`on_change` None: a view nobody is shown (a group's); the job writes to it all the same."""
        self.to = to
        self.state = state
        self._stage = ""
        self._progress = ""
        self._on_change = on_change or (lambda _: None)
        self._shown_to_chat = on_change is not None
        self.persist: Persist | None = None
        self.buttons: Buttons | None = None
        """Shown under the message while the job is live; the last text goes without them."""
        self.fence: Fence | None = None
        """None: nobody's lease to ask (the intake's announcement, before a worker adopts it)."""
        self.version = 0
        self.delivered_version = 0
        self.closed = False
        self.abandoned = False
        """Its owner lost the job (see `abandon`): a later attempt here starts a view of its own."""
        self.held = False
        self.quiet_until = 0.0
        """No intermediate state is shown before this time (the sender's edit interval)."""
        self.in_flight: asyncio.Future[None] | None = None
        """The sender's delivery of this view, while one is under way."""
        self._delivered = asyncio.Event()

    # What the job writes ------------------------------------------------------------------

    def line(self, html: str) -> None:
        """A lasting line: it stays in the message for every later attempt."""
        if not self.closed and html:
            self.state.text += html
            self._changed()

    def stage(self, html: str) -> None:
        """What the job is doing now; the previous stage and its progress go."""
        if not self.closed and (html, "") != (self._stage, self._progress):
            self._stage, self._progress = html, ""
            self._changed()

    def progress(self, html: str) -> None:
        if not self.closed and html != self._progress:
            self._progress = html
            self._changed()

    async def hold(self) -> None:
        """Show nothing more until `settle` or `release` (the video is about to go): a delivery
        already under way lands first, so no earlier state can reach the chat after the video."""
        self.held = True
        await self._landed()

    def release(self) -> None:
        if self.held:
            self.held = False
            self._on_change(self)

    def settle(self, final_stage: str = "") -> None:
        """The job is done: its last text is the lasting lines and `final_stage`."""
        if self.closed:
            return
        self.held = False
        self._stage, self._progress = final_stage, ""
        self.closed = True
        self._changed()

    async def end(self) -> None:
        """Closed with nothing more to show; returns once nothing of this view is on its way."""
        self.closed = True
        self.delivered_version = self.version
        await self._landed()
        self._on_change(self)

    def abandon(self) -> None:
        """Its owner may no longer speak for the job (another worker may hold it now): nothing
        more of it goes to the chat."""
        if self._shown_to_chat and not self.abandoned:
            log.info("log message left to the job's new holder", extra={"chat_id": self.to.chat_id})
        self.abandoned = True
        self.closed = True
        self.delivered_version = self.version
        self._delivered.set()

    @property
    def may_speak(self) -> bool:
        return self.fence is None or self.fence()

    async def shown_all(self) -> None:
        """Until the chat shows this view's latest text (or the sender gave up on it): for a last
        word that must not stay in memory only, such as 💥."""
        while self.pending or self.in_flight is not None:
            self._delivered.clear()
            await self._delivered.wait()

    # What the sender reads and records ----------------------------------------------------

    def delivered(self, version: int, now: float, interval: float) -> None:
        self.delivered_version = max(self.delivered_version, version)
        self.quiet_until = now + interval
        self._delivered.set()

    def render(self) -> str:
        parts = (self.state.text, self._stage, self._progress)
        return "\n".join(p.strip("\n") for p in parts if p.strip())

    @property
    def pending(self) -> bool:
        return (
            self._shown_to_chat
            and self.version != self.delivered_version
            and not self.held
            and bool(self.render())
        )

    @property
    def shown(self) -> bool:
        return bool(self.state.message_ids)

    @property
    def turn(self) -> Turn:
        return Turn.EDIT if self.shown else Turn.MESSAGE

    def due_at(self) -> float:
        """The first text and the last one go at once; those between wait for `quiet_until`."""
        return 0.0 if self.closed or not self.shown else self.quiet_until

    def _changed(self) -> None:
        self.version += 1
        self._on_change(self)

    async def _landed(self) -> None:
        if self.in_flight is not None:
            await asyncio.shield(self.in_flight)
