"""The Babel adapter: a `.po` catalog read once, and each locale's way with numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.babel.languages import BabelLanguages

CATALOG = """
msgid ""
msgstr ""
"Language: es\\n"
"Content-Type: text/plain; charset=utf-8\\n"

msgid "Saved."
msgstr "Guardado."

#, fuzzy
msgid "Cancel"
msgstr "Cancelar"

msgid "Done"
msgstr ""
"""


@pytest.fixture
def languages(tmp_path: Path) -> BabelLanguages:
    (tmp_path / "es.po").write_text(CATALOG, encoding="utf-8")
    return BabelLanguages(tmp_path, ["en", "es"])


def test_a_translated_entry_is_said_and_an_unsure_or_empty_one_stays_english(
    languages: BabelLanguages,
) -> None:
    spanish = languages.language("es")
    assert spanish.code == "es"
    assert spanish.translate("Saved.") == "Guardado."
    assert spanish.translate("Cancel") == "Cancel"  # fuzzy: a translator was not sure
    assert spanish.translate("Done") == "Done"
    assert spanish.translate("Never heard of") == "Never heard of"


def test_a_language_without_a_catalog_is_english(languages: BabelLanguages) -> None:
    assert languages.language("de").code == "en"
    assert languages.language("de").translate("Saved.") == "Saved."


def test_numbers_are_written_the_locales_way(languages: BabelLanguages) -> None:
    english, spanish = languages.language("en"), languages.language("es")
    assert english.decimal(1234.5, digits=2) == "1,234.50"
    assert spanish.decimal(1234.5, digits=2) == "1.234,50"
    assert spanish.decimal(1.5, digits=2, trim=True) == "1,5"
    assert english.decimal(30.0, digits=2, trim=True) == "30"


def test_a_missing_catalog_fails_the_start(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        BabelLanguages(tmp_path, ["en", "ru"])
