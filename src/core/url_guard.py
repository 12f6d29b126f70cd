"""The SSRF guard on the user's link: decided before the job is queued and again before it runs.
Every request the tools then make for it is checked by the guard's proxy, by the same rules."""

from __future__ import annotations

from returns.result import Failure, Result

from core.url_policy import url_endpoint
from ports.net import EgressPolicy, HostResolver


class UrlGuard:
    def __init__(self, resolver: HostResolver, policy: EgressPolicy) -> None:
        self._resolver = resolver
        self._policy = policy

    async def check(self, url: str) -> Result[None, str]:
        """Success when the bot may fetch `url`; otherwise why not, in words for the user."""
        target = url_endpoint(url)
        if isinstance(target, Failure):
            return Failure(target.failure())
        endpoint = target.unwrap()
        addresses = await self._resolver.resolve(endpoint.host)
        return self._policy.check(endpoint.host, endpoint.port, addresses)
