"""Long-video confirmation in groups: one atomic claim decides between confirm and cancel.

A press counts only when its data is the bot's own signature for the very prompt pressed (see
core.trust.buttons); the confirm-by-anyone and cancel-by-requester rules apply on top of that.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable

from core.requests.prompt import CANCEL, CONFIRM, PENDING_TTL_SECONDS
from core.trust.buttons import Press, SignedButtons
from ports.clock import Clock
from ports.pending import CancelOutcome, PendingStore

log = logging.getLogger("vidrelay.confirm")


class Decision(enum.Enum):
    CONFIRMED = "confirmed"
    CANCELLED = "cancelled"
    NOT_REQUESTER = "not_requester"
    GONE = "gone"
    INVALID = "invalid"
    """Not a button of this prompt: forged, altered, copied from another message or chat."""


class Confirmations:
    def __init__(
        self, *, pending: PendingStore, clock: Clock, wake: Callable[[], None], buttons: SignedButtons
    ) -> None:
        """`wake`: a confirmed request is a job now, claimable at once."""
        self._pending = pending
        self._clock = clock
        self._wake = wake
        self._buttons = buttons

    async def press(self, press: Press) -> Decision:
        ref = await self._buttons.verify(press)
        if ref is None or ref.action not in (CONFIRM, CANCEL):
            return Decision.INVALID
        request = await self._pending.pending(ref.object_id)
        if request is not None and request.chat_id != press.chat_id:
            # Signed for this chat's message, yet parked for another: never act across chats.
            log.info("refused a press on a prompt of another chat", extra={"chat_id": press.chat_id})
            return Decision.INVALID
        if ref.action == CONFIRM:
            return await self.confirm(ref.object_id)
        return await self.cancel(ref.object_id, press.user_id)

    async def confirm(self, pending_id: str) -> Decision:
        """Anyone in the group may confirm: the pending row becomes a job in one transaction."""
        if await self._pending.adopt(pending_id, self._clock.now()) is None:
            return Decision.GONE
        self._wake()
        return Decision.CONFIRMED

    async def cancel(self, pending_id: str, user_id: int) -> Decision:
        """Only the requester may cancel."""
        match await self._pending.cancel(pending_id, user_id):
            case CancelOutcome.CANCELLED:
                return Decision.CANCELLED
            case CancelOutcome.NOT_REQUESTER:
                return Decision.NOT_REQUESTER
        return Decision.GONE

    async def expire(self) -> int:
        """Prompts nobody answered for six hours lapse; their pinned bytes become collectable."""
        return len(await self._pending.expire(self._clock.now() - PENDING_TTL_SECONDS))
