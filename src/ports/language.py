"""The languages the bot speaks: each one's translation of the text catalog and its number format."""

from __future__ import annotations

from typing import Protocol


class Language(Protocol):
    @property
    def code(self) -> str:
        """ "en", "es", "ru": the catalog's name for it."""
        ...

    def translate(self, entry: str) -> str:
        """The catalog entry (its English text) in this language; the entry itself when the
        language has no translation of it."""
        ...

    def decimal(self, number: float, *, digits: int = 0, trim: bool = False) -> str:
        """The number as this language writes it ("1,234.50", "1234,50", "1 234,50"), with
        `digits` fraction digits; `trim` drops the trailing zeros among them."""
        ...


class Languages(Protocol):
    def language(self, code: str) -> Language:
        """The language of that catalog name; English for one it has no catalog for."""
        ...
