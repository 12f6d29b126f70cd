"""The bot's real catalogs, as the container reads them: words in any language for a test."""

from __future__ import annotations

from functools import cache

from adapters.babel.languages import BabelLanguages
from core.texts.languages import CODES
from core.texts.words import Words
from entrypoints.wiring.adapters import translations_folder


@cache
def languages() -> BabelLanguages:
    return BabelLanguages(translations_folder(), CODES)


def words(code: str = "en") -> Words:
    return Words.of(languages(), code)
