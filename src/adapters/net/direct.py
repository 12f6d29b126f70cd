"""Runs straight through the operator's proxy (VIDRELAY_PROXY) when the guard is off
(VIDRELAY_ALLOW_PRIVATE_URLS=true): nothing is checked, and the proxy URL, which may carry
credentials, reaches yt-dlp the way the guard's own does, in a private config file."""

from __future__ import annotations

from collections.abc import Sequence

from ports.net import EgressProxy, EgressSession


class _Straight(EgressSession):
    def __init__(self, url: str) -> None:
        self._url = url

    @property
    def url(self) -> str:
        return self._url

    @property
    def refusals(self) -> Sequence[str]:
        return ()

    def close(self) -> None:
        pass


class DirectProxy(EgressProxy):
    def __init__(self, url: str) -> None:
        self._url = url

    async def session(self) -> EgressSession:
        return _Straight(self._url)
