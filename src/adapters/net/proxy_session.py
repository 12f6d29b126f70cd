"""A proxy session: one tool run's credentials, checked on every request, and what was refused to it."""

from __future__ import annotations

import base64
import binascii
import hmac

from ports.net import EgressSession

HOST = "127.0.0.1"


class ProxySession(EgressSession):
    _MAX_KEPT = 20

    def __init__(self, user: str, secret: str, port: int, registry: dict[str, ProxySession]) -> None:
        self._user = user
        self._secret = secret
        self._port = port
        self._registry = registry
        self._refusals: list[str] = []

    @property
    def url(self) -> str:
        return f"http://{self._user}:{self._secret}@{HOST}:{self._port}"

    @property
    def secret(self) -> str:
        return self._secret

    @property
    def refusals(self) -> list[str]:
        return list(self._refusals)

    def admits(self, secret: str) -> bool:
        return hmac.compare_digest(secret.encode(), self._secret.encode())

    def refused(self, why: str) -> bool:
        """Keep `why`; True when this run had not been refused for it yet (worth a log line)."""
        first = why not in self._refusals
        if first and len(self._refusals) < self._MAX_KEPT:
            self._refusals.append(why)
        return first

    @property
    def closed(self) -> bool:
        return self._registry.get(self._user) is not self

    def close(self) -> None:
        self._registry.pop(self._user, None)


def session_for(authorization: str | None, sessions: dict[str, ProxySession]) -> ProxySession | None:
    """The open session whose credentials a Proxy-Authorization header presents, if any."""
    scheme, _, token = (authorization or "").partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        user, _, secret = base64.b64decode(token.strip(), validate=True).decode().partition(":")
    except (binascii.Error, ValueError):
        return None
    session = sessions.get(user)
    return session if session is not None and session.admits(secret) else None
