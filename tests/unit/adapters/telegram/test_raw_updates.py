"""An update as the inbox keeps it: storable text whatever a user put in it, and the same update
when read back."""

from __future__ import annotations

from aiogram import Bot
from aiogram.types import Update

from adapters.telegram.updates import raw_update, to_aiogram


def an_update(text: str, data: str) -> Update:
    chat = {"id": 5, "type": "private", "first_name": "Ann"}
    user = {"id": 5, "is_bot": False, "first_name": "Ann"}
    message = {"message_id": 3, "date": 0, "chat": chat, "from": user, "text": text}
    press = {"id": "q1", "from": user, "chat_instance": "c", "data": data, "message": message}
    return Update.model_validate({"update_id": 77, "callback_query": press})


def test_a_lone_surrogate_or_a_nul_in_an_update_is_kept_as_ascii_text_and_read_back_the_same() -> None:
    update = an_update("hi\x00there", "\udcac junk \ud83d")
    kept = raw_update(update)

    kept.body.encode("utf-8")  # raises for a lone surrogate kept as it is
    assert kept.body.isascii()
    assert "\x00" not in kept.body  # PostgreSQL's text refuses NUL
    assert kept.lane == "chat:5"
    back = to_aiogram(kept, Bot("1:" + "a" * 35))
    assert back.callback_query is not None
    assert back.callback_query.data == "\udcac junk \ud83d"
    assert back.callback_query.message is not None
