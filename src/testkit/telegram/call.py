"""One Bot API request on its way through a method, and the shape of a method."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from testkit.telegram.bodies import Upload
from testkit.telegram.params import Params
from testkit.telegram.state import TelegramState


@dataclass(slots=True)
class Call:
    method: str
    params: Params
    uploads: dict[str, Upload]
    files: dict[str, str] = field(default_factory=dict)
    """The files the method took in (field name → sha256), for the call's record."""


Method = Callable[[TelegramState, Call], Awaitable[Any]]
"""A Bot API method: its `result` on success; it raises ApiError to refuse."""
