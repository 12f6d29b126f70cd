"""The intake as the container builds it, with some of its parts replaced (a refusing store, the
announcements of a shared store): for tests of how it reacts to those parts."""

from __future__ import annotations

from typing import Any

from core.allowlist import ChatAllowlist
from core.incoming.intake.limits import UserLinkLimits
from core.incoming.intake.links import LinkIntake
from tests.support.world import World


def intake_over(world: World, **parts: Any) -> LinkIntake:
    """`parts`: LinkIntake's keyword arguments to use instead of the world's."""
    defaults: dict[str, Any] = {
        "jobs": world.engine,
        "quota": world.store,
        "guard": world.container.guard(),
        "seen": world.store,
        "clock": world.clock,
        "choices": world.store,
        "announcements": world.container.announcements(),
        "limits": UserLinkLimits(quota=world.store, clock=world.clock, hourly=0, daily=0, exempt=()),
        "known": world.container.known_videos(),
        "allowlist": ChatAllowlist((), world.clock),
        "max_queued_per_user": 10,
    }
    return LinkIntake(**(defaults | parts))
