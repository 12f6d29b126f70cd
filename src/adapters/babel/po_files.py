"""A gettext `.po` file as the translations it holds, read with Babel."""

from __future__ import annotations

from pathlib import Path

from babel.messages.pofile import read_po


def read_catalog(path: Path) -> dict[str, str]:
    """Entry → translation, for the entries translated and not fuzzy."""
    with path.open("rb") as file:
        catalog = read_po(file)
    return {
        str(message.id): str(message.string)
        for message in catalog
        if message.id and isinstance(message.string, str) and message.string and not message.fuzzy
    }
