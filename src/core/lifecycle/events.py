"""What can happen to a claimed job: the inputs of the state machine."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Claimed:
    pass


@dataclass(frozen=True, slots=True)
class Rejected:
    """The claimed row cannot run at all (no job type has its name)."""

    reason: str


@dataclass(frozen=True, slots=True)
class Succeeded:
    pass


@dataclass(frozen=True, slots=True)
class Failed:
    error: str
    permanent: bool
    now: float
    not_before: float = 0.0
    """A floor for the retry time (Telegram's retry_after)."""


@dataclass(frozen=True, slots=True)
class Released:
    """Stopped without failing (shutdown), or deferred by the job itself (its chat's turn comes
    later): the attempt is refunded."""

    available_at: float
    deferred: bool = False


Event = Claimed | Rejected | Succeeded | Failed | Released
