"""The SSRF guard's contract: name resolution, the connect decision, and the proxy that enforces it.

The decision is made on resolved addresses, before any request for a job leaves the process, and
the connection then goes to an address that was checked (never a second resolution).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from returns.result import Result

REFUSED_BY = "Refused by vidrelay"
"""How the guard's proxy starts the reason phrase of its 403: `Refused by vidrelay [<why>]`; the
failure classification finds the refusal (and its reason) in the tool's output by it."""


def refusal_phrase(why: str) -> str:
    """The 403 reason phrase for `why`: printable ASCII only, no brackets, so it survives the trip
    through yt-dlp's error line and can be cut out of it again."""
    clean = "".join(c if " " <= c <= "~" and c not in "[]" else "?" for c in why)
    return f"{REFUSED_BY} [{clean[:200]}]"


class HostResolver(Protocol):
    async def resolve(self, host: str) -> list[str]:
        """Every address `host` resolves to (IP literals resolve to themselves); [] if none."""
        ...


class EgressPolicy(Protocol):
    def check(self, host: str, port: int, addresses: Sequence[str]) -> Result[None, str]:
        """Success when the bot may connect to `host:port` (as the request names it) at every one
        of `addresses`; otherwise why not, in words for the user."""
        ...


class EgressSession(Protocol):
    """One tool run's way out: its own credentials, and what the guard refused it."""

    @property
    def url(self) -> str:
        """`http://user:secret@127.0.0.1:port`. It carries the credentials: never log it."""
        ...

    @property
    def refusals(self) -> Sequence[str]:
        """Why each refused connection of this run was refused, in words for the user (oldest first)."""
        ...

    def close(self) -> None:
        """Revoke the credentials: the run is over."""
        ...


class EgressProxy(Protocol):
    """The proxy every request a tool makes for a job goes through (redirects, playlist
    segments, fragments, thumbnails), checked by the guard's policy."""

    async def session(self) -> EgressSession:
        """Credentials for one tool run; the proxy starts on first use."""
        ...
