"""The SSRF guard: decided before any request for a user's link leaves the process."""

from __future__ import annotations

from returns.result import Failure, Result, Success

from core.url_policy import check_addresses, check_scheme
from ports.net import HostResolver


class UrlGuard:
    def __init__(self, resolver: HostResolver, allow_private: bool) -> None:
        self._resolver = resolver
        self._allow_private = allow_private

    async def check(self, url: str) -> Result[None, str]:
        """Success when the bot may fetch `url`; otherwise why not, in words for the user."""
        scheme = check_scheme(url)
        if isinstance(scheme, Failure):
            return Failure(scheme.failure())
        if self._allow_private:
            return Success(None)
        return check_addresses(await self._resolver.resolve(scheme.unwrap()))
