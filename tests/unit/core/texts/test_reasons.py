"""Reasons decided before anyone reads them, kept as phrases (core.texts.phrase)."""

from __future__ import annotations

from core.texts.phrase import Phrase
from core.texts.reasons import guard_refusal, short_duration, unreachable_for
from tests.support.languages import words


def test_the_guards_words_relayed_by_ytdlp_are_read_back_into_their_phrase() -> None:
    refused = guard_refusal("the link leads to a private address (10.1.2.3)")
    assert refused == "refused: the link leads to a private address (10.1.2.3)"
    assert words("ru").reason(refused) == "отказано: ссылка ведёт на частный адрес (10.1.2.3)"
    assert words("es").reason(guard_refusal("scheme 'ftp' is not allowed")) == (
        "rechazado: el esquema 'ftp' no está permitido"
    )


def test_words_that_are_not_the_guards_stay_as_they_came() -> None:
    assert words("es").reason(guard_refusal("the proxy said no")) == "rechazado: the proxy said no"


def test_durations_take_the_languages_units() -> None:
    assert [str(short_duration(s)) for s in (45, 600, 3600, 3900)] == ["45s", "10m", "1h", "1h 5m"]
    assert words("ru").reason(short_duration(3900)) == "1 ч 5 мин"
    assert words("es").reason(
        unreachable_for(7200, Phrase("Telegram refused the video: {description}", description="Bad Gateway"))
    ) == ("No se pudo contactar con Telegram durante 2 h: Telegram rechazó el vídeo: Bad Gateway")
