"""Where updates come from when the bot asks for them: Telegram's getUpdates long poll."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ports.inbox import RawUpdate


class UpdateFeed(Protocol):
    async def fetch(self, offset: int | None, timeout_seconds: int, kinds: Sequence[str]) -> list[RawUpdate]:
        """The next updates, waiting up to `timeout_seconds` for one. `offset`: every update
        below it is confirmed (Telegram forgets it); None confirms nothing. `kinds`: the update
        types to receive. MessengerError when Telegram refused or could not be reached."""
        ...
