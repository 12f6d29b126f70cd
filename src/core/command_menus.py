"""The command menus the bot publishes at every start (Telegram's setMyCommands), so that a
user's client offers its commands: what each audience may use, in each language the texts are
translated into (the English menus are everyone's whose app speaks another language).

Everyone's menu is the default one; groups get theirs (no /help there: a group hears nothing but
videos); each admin's own private chat adds /status and /verbose. A translation plugs in as a
language code and a function that translates an English line (a catalog's translation); the
English menus are published for every language without one of its own. The lines are the
catalog's (core.texts.COMMAND_DESCRIPTIONS): whole, plain text (no HTML), at most 256 characters.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping

from core.texts import COMMAND_DESCRIPTIONS
from core.texts.languages import CODES, ENGLISH
from ports.bot_account import CommandMenu, MenuCommand
from ports.language import Languages

Translate = Callable[[str], str]

EVERYONE = ("help", "audio", "video", "settings", "id")
GROUPS = ("audio", "video", "settings", "id")
ADMINS = (*EVERYONE, "status", "verbose")


def command_menus(
    admin_user_ids: Collection[int], translations: Mapping[str, Translate] | None = None
) -> list[CommandMenu]:
    """Every menu to publish: per language, everyone's, the groups', and one per admin."""
    languages: dict[str, Translate] = {"": _english, **(translations or {})}
    menus = []
    for language, translate in languages.items():
        menus.append(CommandMenu(_menu(EVERYONE, translate), "default", language=language))
        menus.append(CommandMenu(_menu(GROUPS, translate), "all_group_chats", language=language))
        menus += [
            CommandMenu(_menu(ADMINS, translate), "chat", chat_id=admin, language=language)
            for admin in sorted(admin_user_ids)
        ]
    return menus


def translations(languages: Languages) -> dict[str, Translate]:
    """Every catalog's translation of the menus but English's (the menus' default)."""
    return {code: languages.language(code).translate for code in CODES if code != ENGLISH}


def _menu(commands: tuple[str, ...], translate: Translate) -> tuple[MenuCommand, ...]:
    return tuple(MenuCommand(name, translate(COMMAND_DESCRIPTIONS[name])) for name in commands)


def _english(line: str) -> str:
    return line
