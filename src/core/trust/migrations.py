"""When a chat's new id may be followed: only a basic group becomes a supergroup, once.

Telegram tells a migration twice: as a service message in the old group, and as the error of a
call to the old id (with `migrate_to_chat_id`). Either way the bot moves a job's chat only when
what it recorded of that chat (its type and id, from the message the job came from) can migrate,
and only to an id shaped like a supergroup's, so no field can point a job at an arbitrary chat.
"""

from __future__ import annotations

SUPERGROUP_IDS_BELOW = -1_000_000_000_000
"""Supergroup and channel ids are -100 followed by the chat's number; basic groups' are above."""


def may_migrate(chat_type: str, chat_id: int, new_chat_id: int | None) -> bool:
    return (
        chat_type == "group"
        and SUPERGROUP_IDS_BELOW < chat_id < 0
        and new_chat_id is not None
        and new_chat_id < SUPERGROUP_IDS_BELOW
    )
