"""The catalog's translations, read from gettext `.po` files with Babel, and each locale's numbers.

A catalog is read once, at start: a missing or broken file fails the start (the bot would
otherwise speak English to those users without a word in the log). An entry left untranslated,
or marked fuzzy, is said in English.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from babel import Locale
from babel.numbers import format_decimal

from adapters.babel.po_files import read_catalog
from ports.language import Language, Languages

ENGLISH = "en"


class BabelLanguage(Language):
    def __init__(self, code: str, translations: Mapping[str, str]) -> None:
        self._code = code
        self._locale = Locale.parse(code)
        self._translations = translations

    @property
    def code(self) -> str:
        return self._code

    def translate(self, entry: str) -> str:
        return self._translations.get(entry) or entry

    def decimal(self, number: float, *, digits: int = 0, trim: bool = False) -> str:
        fraction = ("#" if trim else "0") * digits
        pattern = f"#,##0.{fraction}" if digits else "#,##0"
        return format_decimal(number, format=pattern, locale=self._locale, decimal_quantization=True)


class BabelLanguages(Languages):
    def __init__(self, folder: Path, codes: Iterable[str]) -> None:
        """`folder` holds one `<code>.po` per language of `codes` but English (the catalog's own)."""
        self._languages = {ENGLISH: BabelLanguage(ENGLISH, {})}
        for code in codes:
            if code != ENGLISH:
                self._languages[code] = BabelLanguage(code, read_catalog(folder / f"{code}.po"))

    def language(self, code: str) -> Language:
        return self._languages.get(code) or self._languages[ENGLISH]
