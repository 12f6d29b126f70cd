"""Per-user link limits an operator may set (VIDRELAY_USER_HOURLY_LINKS / _DAILY_LINKS): how many
links one user may send in an hour and in a day. The links are counted in the store, so a limit
holds across restarts and across ingest processes; admins are exempt. A store that cannot say
now applies no limit (a busy store is no reason to refuse a link), and a count that could not be
written costs the user nothing."""

from __future__ import annotations

import logging
from collections.abc import Collection

from core.incoming.intake.windows import DAY, HOUR, LimitReached, limit_reached
from ports.clock import Clock
from ports.errors import StoreError
from ports.quota import UserQuota

log = logging.getLogger("vidrelay.intake")


class UserBudget:
    """One user's recent links while one message is taken in."""

    def __init__(self, limits: UserLinkLimits, user_id: int, times: list[float]) -> None:
        self._limits = limits
        self._user = user_id
        self._times = times

    def refused(self) -> LimitReached | None:
        return limit_reached(self._times, self._limits.now(), self._limits.windows)

    async def spend(self) -> None:
        at = self._limits.now()
        self._times.append(at)
        await self._limits.count(self._user, at)


class UserLinkLimits:
    def __init__(
        self, *, quota: UserQuota, clock: Clock, hourly: int, daily: int, exempt: Collection[int]
    ) -> None:
        """`hourly`, `daily`: links allowed per user, 0 = no limit; `exempt`: the admins."""
        self._quota = quota
        self._clock = clock
        self.windows = tuple((n, seconds) for n, seconds in ((hourly, HOUR), (daily, DAY)) if n > 0)
        self._exempt = frozenset(exempt)

    def now(self) -> float:
        return self._clock.now()

    async def budget(self, user_id: int) -> UserBudget | None:
        """None when no limit applies to this user now."""
        if not self.windows or user_id in self._exempt:
            return None
        longest = max(seconds for _, seconds in self.windows)
        try:
            times = await self._quota.links_since(user_id, self.now() - longest)
        except StoreError as error:
            log.warning("the per-user link limit could not be read", exc_info=error)
            return None
        return UserBudget(self, user_id, times)

    async def count(self, user_id: int, at: float) -> None:
        longest = max(seconds for _, seconds in self.windows)
        try:
            await self._quota.count_link(user_id, at, forget_before=at - longest)
        except StoreError as error:
            log.warning("a link could not be counted against its user's limit", exc_info=error)
