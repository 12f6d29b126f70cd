"""A catalog entry kept with its values, to be said later in the language of whoever reads it.

A failure's reason is decided deep in a job (a timeout, a site's verdict) and read much later by
the operator (the log, the dead-letter row: English) and by the user (the 💥 line: theirs). A
`Phrase` is that reason: a `str` whose text is the English one, so everything that logs or stores
it goes on as with any string, and that remembers its entry and values, so `Words.reason` says it
again in the user's language. Any other string (yt-dlp's words, Telegram's) is said as it is.
"""

from __future__ import annotations

from collections.abc import Mapping


class Phrase(str):
    """Its values: numbers (each language writes them its own way), Phrases, or words said as they are."""

    entry: str
    values: Mapping[str, str | int | float]

    def __new__(cls, entry: str, **values: str | int | float) -> Phrase:
        phrase = super().__new__(cls, entry.format(**{k: _english(v) for k, v in values.items()}))
        phrase.entry = entry
        phrase.values = values
        return phrase


def _english(value: str | int | float) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)
