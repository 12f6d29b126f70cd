"""The choices a chat can make, and what one button press changes.

Buttons carry a `ButtonRef` (action, value) that the bot signed for the panel's message; the
value is one of the few offered here, so a press can only ever pick an offered choice.
"""

from __future__ import annotations

from dataclasses import replace

from core.texts.languages import CODES
from core.trust.callback_data import ButtonRef
from ports.chat_settings import ChatSettings

HEIGHTS: tuple[int | None, ...] = (None, 1080, 720, 480)
"""The qualities offered, best first: None is the best that fits the upload limit."""
ASK_FROM_SECONDS: tuple[int, ...] = (300, 600, 1200, 1800, 3600)
"""From what length a group's long video asks first."""

QUALITY = "set_quality"
AUDIO = "set_audio"
AS_FILE = "set_file"
ASK = "set_ask"
ASK_FROM = "set_ask_from"
LANGUAGE = "set_language"
DONE = "set_done"
ACTIONS = frozenset({QUALITY, AUDIO, AS_FILE, ASK, ASK_FROM, LANGUAGE, DONE})
PREFIX = "set_"
"""Every settings button's action starts so: its router takes those presses and only those."""
ON, OFF, BEST = "on", "off", "best"
AUTOMATIC = "auto"
"""A private chat's language: its user's Telegram app's."""


def height_value(height: int | None) -> str:
    return BEST if height is None else str(height)


def changed(settings: ChatSettings, ref: ButtonRef, *, group: bool) -> ChatSettings | None:
    """The settings after the press; None when the press names no offered choice (a group's
    choice pressed in a private chat, an unknown value)."""
    value = ref.object_id
    if ref.action == QUALITY:
        heights = {height_value(h): h for h in HEIGHTS}
        return replace(settings, max_height=heights[value]) if value in heights else None
    if ref.action == AUDIO and value in (ON, OFF):
        return replace(settings, audio_only=value == ON)
    if ref.action == AS_FILE and value in (ON, OFF):
        return replace(settings, as_file=value == ON)
    if ref.action == ASK and value in (ON, OFF) and group:
        return replace(settings, ask_long_videos=value == ON)
    if ref.action == ASK_FROM and group and value.isdigit() and int(value) in ASK_FROM_SECONDS:
        return replace(settings, ask_long_videos=True, ask_longer_than_seconds=int(value))
    if ref.action == LANGUAGE and value in CODES:
        return replace(settings, language=value)
    if ref.action == LANGUAGE and value == AUTOMATIC and not group:
        return replace(settings, language=None)
    return None


def ask_longer_than(settings: ChatSettings, default_seconds: float) -> float | None:
    """From what length a long video asks first in this chat; None: it never asks."""
    if not settings.ask_long_videos:
        return None
    chosen = settings.ask_longer_than_seconds
    return float(chosen) if chosen is not None else default_seconds
