"""Every catalog entry is translated into every language the bot offers, and each translation
fills the same placeholders, keeps the same HTML tags, emoji and line breaks: a message can
neither fall back to English nor break (a `{name}` lost, a `<b>` unclosed) in one language."""

from __future__ import annotations

import re
import string
import unicodedata
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from core import texts
from core.texts.languages import CODES, ENGLISH
from entrypoints.wiring.adapters import translations_folder

TRANSLATED = [code for code in CODES if code != ENGLISH]
TAG = re.compile(r"</?[a-z]+>")


def catalog_entries() -> Iterator[tuple[str, str]]:
    """(name, English text) of every entry of core/texts/__init__.py."""
    for name, value in vars(texts).items():
        if not name.isupper():
            continue
        if isinstance(value, str):
            yield name, value
        elif isinstance(value, dict):
            yield from ((f"{name}[{key}]", text) for key, text in value.items())


ENTRIES = dict(catalog_entries())


def translations(code: str) -> dict[str, str]:
    with (translations_folder() / f"{code}.po").open("rb") as file:
        catalog = read_po(file)
    return {str(m.id): str(m.string) for m in catalog if m.id and not m.fuzzy}


def placeholders(text: str) -> Counter[str]:
    return Counter(field for _, field, _, _ in string.Formatter().parse(text) if field is not None)


def emoji(text: str) -> Counter[str]:
    return Counter(c for c in text if unicodedata.category(c) == "So")


def shape(text: str) -> tuple[object, ...]:
    """What a translation must keep of its entry: placeholders, tags, emoji, where lines break."""
    edges = (text.startswith("\n"), text.endswith("\n"), text.count("\n"))
    return placeholders(text), Counter(TAG.findall(text)), emoji(text), edges


def test_the_catalog_has_entries_and_the_check_reads_them() -> None:
    assert ENTRIES["FAILED"] == "\n💥 <b>Download failed</b>: {reason}"
    assert ENTRIES["SITE_VERDICTS[private]"] == "this video is private"
    assert len(ENTRIES) > 100


def test_the_translations_folder_holds_one_catalog_per_language_offered() -> None:
    assert sorted(p.stem for p in Path(translations_folder()).glob("*.po")) == sorted(TRANSLATED)


@pytest.mark.parametrize("code", TRANSLATED)
def test_every_entry_is_translated(code: str) -> None:
    translated = translations(code)
    missing = sorted(name for name, text in ENTRIES.items() if not translated.get(text, "").strip())
    assert missing == [], f"{code}.po lacks these entries"


@pytest.mark.parametrize("code", TRANSLATED)
def test_a_translation_names_no_entry_the_catalog_lacks(code: str) -> None:
    assert sorted(set(translations(code)) - set(ENTRIES.values())) == []


@pytest.mark.parametrize("code", TRANSLATED)
def test_each_translation_keeps_its_entrys_placeholders_tags_and_emoji(code: str) -> None:
    translated = translations(code)
    differing = [
        name
        for name, text in ENTRIES.items()
        if text in translated and shape(translated[text]) != shape(text)
    ]
    assert differing == []


@pytest.mark.parametrize("code", TRANSLATED)
def test_each_translation_is_filled_in_as_its_entry_is(code: str) -> None:
    translated = translations(code)
    for text in ENTRIES.values():
        values = dict.fromkeys(placeholders(text), "x")
        translated[text].format(**values)  # raises on a brace the entry does not have


def test_the_check_sees_a_lost_placeholder_a_broken_tag_and_a_lost_emoji() -> None:
    entry = "\n💥 <b>Download failed</b>: {reason}"
    assert shape("\n💥 <b>La descarga falló</b>: {reason}") == shape(entry)
    assert shape("\n💥 <b>La descarga falló</b>: {razon}") != shape(entry)
    assert shape("\n💥 <b>La descarga falló: {reason}") != shape(entry)
    assert shape("\n<b>La descarga falló</b>: {reason}") != shape(entry)
    assert shape("💥 <b>La descarga falló</b>: {reason}") != shape(entry)
