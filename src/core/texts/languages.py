"""Which language a chat reads: the catalogs the bot has, and how a chat's one is chosen.

A private chat reads the language its user chose in /settings, else the one of their Telegram
app (`language_code`, sent with every update), else English; a group reads what the group chose
in /settings, else English (its members' apps may say as many languages as it has members).
A code the bot has no catalog for falls back to its base language ("es-419" → "es", "ru-RU" →
"ru"), then to English ("de", "pt-br").
"""

from __future__ import annotations

ENGLISH = "en"
NAMES = {"en": "English", "es": "Español", "ru": "Русский"}
"""The catalogs the bot has (translations/<code>.po but English), each named in itself."""
CODES = tuple(NAMES)


def supported(code: str | None) -> str | None:
    """The catalog for a Telegram language code, if the bot has one."""
    if not code:
        return None
    base = code.strip().lower().replace("_", "-").split("-", 1)[0]
    return base if base in NAMES else None


def chat_language(*, private: bool, chosen: str | None, app_language: str | None) -> str:
    """`chosen`: the chat's /settings choice (None: automatic); `app_language`: the sender's
    Telegram app's language code."""
    choice = supported(chosen)
    if choice is not None:
        return choice
    return (supported(app_language) if private else None) or ENGLISH
