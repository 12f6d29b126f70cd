"""How long anything may take on PostgreSQL: every wait of the store has an end.

A store call that the server does not answer (a restart, a killed backend, a network that went
silent while its sockets stay open) must fail, not hang: callers back off and try again, but a
caller that waits forever is a worker that is gone without anyone noticing. So each session is
bounded on both sides of the wire:

- the server stops a statement after `statement_seconds` (statement_timeout) and ends a session
  that sits idle inside a transaction for `idle_in_transaction_seconds` (its locks go with it);
- the server probes an idle client every `keepalive_seconds` (tcp_keepalives_*), and our sockets
  probe the server the same way, so a peer that vanished without a word is noticed;
- the client gives up on any call `grace_seconds` after the server should have answered (the
  silent network, where no error can arrive), and drops that connection, whose state it no
  longer knows; connecting gives up after `connect_seconds`, closing after `close_seconds`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

_KEEPALIVE_PROBES: Final = 3


@dataclass(frozen=True, slots=True)
class SessionLimits:
    statement_seconds: float = 15.0
    idle_in_transaction_seconds: float = 30.0
    keepalive_seconds: float = 10.0
    connect_seconds: float = 10.0
    close_seconds: float = 5.0
    grace_seconds: float = 2.0

    @property
    def call_seconds(self) -> float:
        """The client's bound on one call: the server's own limit, and time for its answer."""
        return self.statement_seconds + self.grace_seconds

    def server_settings(self, application_name: str) -> dict[str, str]:
        return {
            "application_name": application_name,
            "statement_timeout": _milliseconds(self.statement_seconds),
            "idle_in_transaction_session_timeout": _milliseconds(self.idle_in_transaction_seconds),
            "tcp_keepalives_idle": str(max(int(self.keepalive_seconds), 1)),
            "tcp_keepalives_interval": str(max(int(self.keepalive_seconds / _KEEPALIVE_PROBES), 1)),
            "tcp_keepalives_count": str(_KEEPALIVE_PROBES),
        }


def _milliseconds(seconds: float) -> str:
    return str(max(int(seconds * 1000), 1))


DEFAULT_LIMITS: Final = SessionLimits()
