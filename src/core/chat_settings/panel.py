"""The /settings panel: what a chat chose, in words, and the signed buttons that change it.

The selected choice carries a ✅; a toggle's button says what it is now and a press flips it.
Only groups see the long-video choices: a private chat never asks first. The panel speaks the
chat's language, and a language picked on it takes effect on the panel at once.
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
    AUTOMATIC,
    DONE,
    HEIGHTS,
    LANGUAGE,
    OFF,
    ON,
    QUALITY,
    ask_longer_than,
    height_value,
)
from core.texts.languages import ENGLISH, NAMES
from core.texts.words import Words
from core.trust.buttons import SignedButton
from core.trust.callback_data import ButtonRef
from ports.chat_settings import ChatSettings


@dataclass(frozen=True, slots=True)
class Panel:
    text: str
    rows: list[list[SignedButton]]


def panel(settings: ChatSettings, words: Words, *, group: bool, default_ask_seconds: float) -> Panel:
    """`words`: the chat's, in the language it reads now."""
    audio = words.say(texts.SETTINGS_AUDIO, state=words.on_off(settings.audio_only))
    lines = [
        words.say(texts.SETTINGS_TITLE),
        words.say(texts.SETTINGS_QUALITY, quality=words.quality_name(settings.max_height)),
        audio + (words.say(texts.SETTINGS_AUDIO_ON_HINT) if settings.audio_only else ""),
        words.say(texts.SETTINGS_AS_FILE, state=words.on_off(settings.as_file))
        + (words.say(texts.SETTINGS_AS_FILE_ON_HINT) if settings.as_file else ""),
        words.say(texts.SETTINGS_LANGUAGE, language=language_name(settings, words, group=group)),
    ]
    rows = [
        _quality_row(settings.max_height, words),
        [_toggle(words, words.say(texts.BUTTON_AUDIO_ONLY), AUDIO, settings.audio_only)],
        [_toggle(words, words.say(texts.BUTTON_AS_FILE), AS_FILE, settings.as_file)],
        _language_row(settings.language, words, group=group),
    ]
    if group:
        threshold = ask_longer_than(settings, default_ask_seconds)
        lines.append(words.say(texts.SETTINGS_LONG_VIDEOS, asking=words.long_videos(threshold)))
        rows.append([_toggle(words, words.say(texts.BUTTON_ASK_LONG), ASK, threshold is not None)])
        if threshold is not None:
            rows.append(_threshold_row(threshold, words))
    rows.append([SignedButton(words.say(texts.BUTTON_DONE), ButtonRef(DONE, "panel"))])
    return Panel("\n".join(lines), rows)


def field_answer(
    settings: ChatSettings, action: str, words: Words, *, group: bool, default_ask_seconds: float
) -> str:
    """The callback answer to a press: what the pressed choice is now."""
    if action == QUALITY:
        return words.say(texts.ANSWER_QUALITY, quality=words.quality_name(settings.max_height))
    if action == AUDIO:
        return words.say(texts.ANSWER_AUDIO, state=words.on_off(settings.audio_only))
    if action == AS_FILE:
        return words.say(texts.ANSWER_AS_FILE, state=words.on_off(settings.as_file))
    if action == LANGUAGE:
        return words.say(texts.ANSWER_LANGUAGE, language=language_name(settings, words, group=group))
    asking = words.long_videos(ask_longer_than(settings, default_ask_seconds))
    return words.say(texts.ANSWER_LONG_VIDEOS, asking=asking)


def language_name(settings: ChatSettings, words: Words, *, group: bool) -> str:
    if settings.language is not None:
        return NAMES.get(settings.language, NAMES[ENGLISH])
    if group:
        return NAMES[ENGLISH]
    return words.say(texts.LANGUAGE_AUTOMATIC, language=NAMES.get(words.code, NAMES[ENGLISH]))


def _selected(words: Words, label: str, selected: bool) -> str:
    return words.say(texts.BUTTON_SELECTED, label=label) if selected else label


def _quality_row(chosen: int | None, words: Words) -> list[SignedButton]:
    return [
        SignedButton(
            _selected(
                words,
                words.say(texts.QUALITY_BUTTON_BEST)
                if height is None
                else words.say(texts.QUALITY_BUTTON, height=height),
                height == chosen,
            ),
            ButtonRef(QUALITY, height_value(height)),
        )
        for height in HEIGHTS
    ]


def _language_row(chosen: str | None, words: Words, *, group: bool) -> list[SignedButton]:
    """Each language named in itself; a group's "automatic" is English, so it is not offered."""
    shown = chosen if chosen is not None or not group else ENGLISH
    row = [] if group else [(words.say(texts.BUTTON_LANGUAGE_AUTOMATIC), AUTOMATIC, shown is None)]
    row += [(name, code, code == shown) for code, name in NAMES.items()]
    return [SignedButton(_selected(words, label, on), ButtonRef(LANGUAGE, value)) for label, value, on in row]


def _toggle(words: Words, label: str, action: str, now_on: bool) -> SignedButton:
    text = words.say(texts.BUTTON_TOGGLE, label=label, state=words.on_off(now_on))
    return SignedButton(text, ButtonRef(action, OFF if now_on else ON))


def _threshold_row(threshold: float, words: Words) -> list[SignedButton]:
    return [
        SignedButton(
            _selected(words, words.duration(seconds), seconds == threshold),
            ButtonRef(ASK_FROM, str(seconds)),
        )
        for seconds in ASK_FROM_SECONDS
    ]
