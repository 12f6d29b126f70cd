"""The /settings panel: what a chat chose, in words, and the signed buttons that change it.

The selected choice carries a ✅; a toggle's button says what it is now and a press flips it.
Only groups see the long-video choices: a private chat never asks first.
"""

from __future__ import annotations

from dataclasses import dataclass

from core import texts
from core.chat_settings.choices import (
    ASK,
    ASK_FROM,
    ASK_FROM_SECONDS,
    AUDIO,
    DONE,
    HEIGHTS,
    OFF,
    ON,
    QUALITY,
    ask_longer_than,
    height_value,
)
from core.trust.buttons import SignedButton
from core.trust.callback_data import ButtonRef
from ports.chat_settings import ChatSettings

SELECTED = "✅ "
NOT_ADMIN = "Only the group's administrators can change its settings."
CLOSED = "⚙️ Settings saved. Send /settings to change them again."


@dataclass(frozen=True, slots=True)
class Panel:
    text: str
    rows: list[list[SignedButton]]


def panel(settings: ChatSettings, *, group: bool, default_ask_seconds: float) -> Panel:
    lines = [
        "⚙️ <b>Settings for this chat</b>",
        f"Quality: <b>{quality_name(settings.max_height)}</b>",
        f"Audio only: <b>{'on' if settings.audio_only else 'off'}</b>"
        + (" (links come back as their sound; /video for a video)" if settings.audio_only else ""),
    ]
    rows = [_quality_row(settings.max_height), [_toggle("🎵 Audio only", AUDIO, settings.audio_only)]]
    if group:
        threshold = ask_longer_than(settings, default_ask_seconds)
        lines.append(f"Long videos: <b>{_asking(threshold)}</b>")
        rows.append([_toggle("⏱ Ask before long videos", ASK, threshold is not None)])
        if threshold is not None:
            rows.append(_threshold_row(threshold))
    rows.append([SignedButton("✔️ Done", ButtonRef(DONE, "panel"))])
    return Panel("\n".join(lines), rows)


def quality_name(height: int | None) -> str:
    return "best that fits" if height is None else f"up to {height}p"


def field_answer(settings: ChatSettings, action: str, *, default_ask_seconds: float) -> str:
    """The callback answer to a press: what the pressed choice is now."""
    if action == QUALITY:
        return f"Quality: {quality_name(settings.max_height)}"
    if action == AUDIO:
        return f"Audio only: {'on' if settings.audio_only else 'off'}"
    return f"Long videos: {_asking(ask_longer_than(settings, default_ask_seconds))}"


def _asking(threshold: float | None) -> str:
    if threshold is None:
        return "sent without asking"
    return f"ask first when longer than {texts.short_duration(threshold)}"


def _quality_row(chosen: int | None) -> list[SignedButton]:
    return [
        SignedButton(
            (SELECTED if height == chosen else "") + ("Best" if height is None else f"{height}p"),
            ButtonRef(QUALITY, height_value(height)),
        )
        for height in HEIGHTS
    ]


def _toggle(label: str, action: str, now_on: bool) -> SignedButton:
    return SignedButton(f"{label}: {'on' if now_on else 'off'}", ButtonRef(action, OFF if now_on else ON))


def _threshold_row(threshold: float) -> list[SignedButton]:
    return [
        SignedButton(
            (SELECTED if seconds == threshold else "") + texts.short_duration(seconds),
            ButtonRef(ASK_FROM, str(seconds)),
        )
        for seconds in ASK_FROM_SECONDS
    ]
