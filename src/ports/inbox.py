"""The update inbox: what Telegram delivered, kept before Telegram is told it arrived.

Polling confirms an update (a getUpdates with a higher offset), and the webhook answers 200, only
once the update is in the inbox: a crash after that replays it at the next start, a crash before
it means Telegram delivers it again. The contract every store keeps (tests/contract/test_inbox.py):

- `keep_updates` writes a whole batch in one transaction, or nothing (it raises). An update the
  inbox knows already (handed out again because its confirmation never reached Telegram, or
  handled since) is left as it is: only the new ones are returned, to be handled now.
- `waiting_updates` is every kept update not yet handled, oldest update id first: what a start
  replays.
- `update_handled` marks one as handled. The mark stays until swept, so a batch Telegram hands
  out again after a crash is recognised and not handled twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class RawUpdate:
    update_id: int
    lane: str
    """Updates of one lane are handled one after the other, in update id order (a chat's, a
    user's inline queries); different lanes at the same time."""
    body: str
    """The update as JSON text, as Telegram's Bot API sent it."""


@dataclass(frozen=True, slots=True)
class KeptUpdate:
    update: RawUpdate
    received_at: float
    """When the inbox first kept it."""


class UpdateInbox(Protocol):
    async def keep_updates(self, updates: Sequence[RawUpdate], now: float) -> list[KeptUpdate]:
        """Keep the batch in one transaction; the updates that were new to the inbox."""
        ...

    async def waiting_updates(self) -> list[KeptUpdate]:
        """Every kept update not yet handled, by update id."""
        ...

    async def update_handled(self, update_id: int, now: float) -> None:
        """Its handling is over (done, or given up): never handed out for handling again."""
        ...

    async def sweep_inbox(self, handled_before: float) -> int:
        """Forget the handled updates marked before `handled_before`; how many went."""
        ...


class UpdateNotKept(Exception):
    """What an update asked for could not be made durable yet (its job was not written): its
    inbox row stays, and the update is handled again later."""
