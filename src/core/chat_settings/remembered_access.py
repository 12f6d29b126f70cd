"""Who may change a chat's settings, remembered for a short while: a panel is a handful of taps in
a row, and each would cost a call to Telegram. An answer is kept for REMEMBER_SECONDS, no
longer: an administrator demoted a minute ago is a member now."""

from __future__ import annotations

from core.chat_settings.who_may_change import Asker, ChangeAccess
from ports.clock import Clock

REMEMBER_SECONDS = 30.0
_PRUNE_ABOVE = 1024


class RememberedAccess:
    def __init__(self, access: ChangeAccess, clock: Clock, *, seconds: float = REMEMBER_SECONDS) -> None:
        self._access = access
        self._clock = clock
        self._seconds = seconds
        self._answers: dict[Asker, tuple[bool, float]] = {}

    async def may_change(self, asker: Asker) -> bool:
        now = self._clock.now()
        known = self._answers.get(asker)
        if known is not None and now - known[1] < self._seconds:
            return known[0]
        allowed = await self._access.may_change(
            asker.chat_id, asker.chat_type, asker.user_id, sender_chat_id=asker.sender_chat_id
        )
        self._remember(asker, allowed, now)
        return allowed

    def _remember(self, asker: Asker, allowed: bool, now: float) -> None:
        if len(self._answers) >= _PRUNE_ABOVE:
            self._answers = {a: v for a, v in self._answers.items() if now - v[1] < self._seconds}
        self._answers[asker] = (allowed, now)
