"""The /settings panel: what a chat chose, in words, and the signed buttons that change it.

The selected choice carries a ✅; a toggle's button says what it is now and a press flips it.
Only groups see the long-video choices: a private chat never asks first.
"""

from __future__ import annotations

from dataclasses import dataclass

from core import texts
from core.chat_settings.choices import (
    AS_FILE,
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
from core.durations import short_duration
from core.trust.buttons import SignedButton
from core.trust.callback_data import ButtonRef
from ports.chat_settings import ChatSettings


@dataclass(frozen=True, slots=True)
class Panel:
    text: str
    rows: list[list[SignedButton]]


def panel(settings: ChatSettings, *, group: bool, default_ask_seconds: float) -> Panel:
    audio = texts.SETTINGS_AUDIO.format(state=texts.on_off(settings.audio_only))
    lines = [
        texts.SETTINGS_TITLE,
        texts.SETTINGS_QUALITY.format(quality=texts.quality_name(settings.max_height)),
        audio + (texts.SETTINGS_AUDIO_ON_HINT if settings.audio_only else ""),
        texts.settings_as_file(settings.as_file),
    ]
    rows = [
        _quality_row(settings.max_height),
        [_toggle(texts.BUTTON_AUDIO_ONLY, AUDIO, settings.audio_only)],
        [_toggle(texts.BUTTON_AS_FILE, AS_FILE, settings.as_file)],
    ]
    if group:
        threshold = ask_longer_than(settings, default_ask_seconds)
        lines.append(texts.SETTINGS_LONG_VIDEOS.format(asking=texts.long_videos(threshold)))
        rows.append([_toggle(texts.BUTTON_ASK_LONG, ASK, threshold is not None)])
        if threshold is not None:
            rows.append(_threshold_row(threshold))
    rows.append([SignedButton(texts.BUTTON_DONE, ButtonRef(DONE, "panel"))])
    return Panel("\n".join(lines), rows)


def field_answer(settings: ChatSettings, action: str, *, default_ask_seconds: float) -> str:
    """The callback answer to a press: what the pressed choice is now."""
    if action == QUALITY:
        return texts.ANSWER_QUALITY.format(quality=texts.quality_name(settings.max_height))
    if action == AUDIO:
        return texts.ANSWER_AUDIO.format(state=texts.on_off(settings.audio_only))
    if action == AS_FILE:
        return texts.ANSWER_AS_FILE.format(state=texts.on_off(settings.as_file))
    asking = texts.long_videos(ask_longer_than(settings, default_ask_seconds))
    return texts.ANSWER_LONG_VIDEOS.format(asking=asking)


def _selected(label: str, selected: bool) -> str:
    return texts.BUTTON_SELECTED.format(label=label) if selected else label


def _quality_row(chosen: int | None) -> list[SignedButton]:
    return [
        SignedButton(
            _selected(
                texts.QUALITY_BUTTON_BEST if height is None else texts.QUALITY_BUTTON.format(height=height),
                height == chosen,
            ),
            ButtonRef(QUALITY, height_value(height)),
        )
        for height in HEIGHTS
    ]


def _toggle(label: str, action: str, now_on: bool) -> SignedButton:
    text = texts.BUTTON_TOGGLE.format(label=label, state=texts.on_off(now_on))
    return SignedButton(text, ButtonRef(action, OFF if now_on else ON))


def _threshold_row(threshold: float) -> list[SignedButton]:
    return [
        SignedButton(
            _selected(short_duration(seconds), seconds == threshold),
            ButtonRef(ASK_FROM, str(seconds)),
        )
        for seconds in ASK_FROM_SECONDS
    ]
