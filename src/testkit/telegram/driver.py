"""The test's write side of the fake: chats, faults, and the users' doings as Telegram's updates.

Every method that produces an update is synchronous: several calls without an `await` between
them arrive in one getUpdates batch.
"""

from __future__ import annotations

import base64
import secrets
import time
from typing import Any

from testkit.telegram.entities import find_entities
from testkit.telegram.inspection import InspectableBotApi
from testkit.telegram.messages import InlineMessage, Version
from testkit.telegram.outages import Outage, OutageKind
from testkit.telegram.people import Chat, User
from testkit.telegram.rendering import message_json

_TELEGRAM = User(777000, "Telegram")
"""The account that signs service messages."""


class FakeBotApi(InspectableBotApi):
    """`async with FakeBotApi() as api:` — or `await start()` / `await stop()`."""

    def add_chat(self, chat: Chat) -> Chat:
        """Make a chat known (the bot can write to it). Chats of helper-made updates are added anyway."""
        return self._state.add_chat(chat)

    def set_member_status(self, chat: Chat, user: User, status: str) -> None:
        """What getChatMember says of `user` in `chat`: "creator", "administrator", "member",
        "restricted", "left" or "kicked" (everybody not set is a "member")."""
        self.add_chat(chat)
        self._state.members[(chat.id, user.id)] = (user, status)

    def block_chat(self, chat_id: int) -> None:
        """The user blocked the bot (private) or kicked it (groups): every call to the chat is 403."""
        self._state.blocked.add(chat_id)

    def unblock_chat(self, chat_id: int) -> None:
        self._state.blocked.discard(chat_id)

    def fail_next(
        self,
        method: str,
        *,
        code: int = 429,
        retry_after: int | None = None,
        description: str | None = None,
        times: int = 1,
        chat_id: int | None = None,
    ) -> None:
        """Answer the next `times` calls of `method` (to `chat_id`, if given) with this error instead.

        429 defaults to retry_after=1 and Telegram's "Too Many Requests: retry after N".
        """
        self._state.faults.add(
            method, code=code, retry_after=retry_after, description=description, times=times, chat_id=chat_id
        )

    def go_down(self, *, from_method: str, seconds: float, refuse: bool = False) -> Outage:
        """Telegram goes down at the first call of `from_method` (that call included) for
        `seconds`: every call is answered 502 with nginx's HTML page, or (`refuse`) the server
        stops listening and accepts no connection until the outage is over."""
        kind = OutageKind.REFUSED if refuse else OutageKind.BAD_GATEWAY
        self._state.outage = Outage(kind, seconds, from_method)
        return self._state.outage

    def set_webhook(self, url: str, *, delivery_error: str | None = None) -> None:
        """A webhook is set, as `vidrelay run --webhook` (or another deployment) left it: getUpdates
        is then refused with 409 Conflict until deleteWebhook. `delivery_error`: Telegram's last
        failure to deliver to it, as getWebhookInfo shows it ("Connection refused")."""
        self._state.webhook = {"url": url, "secret_token": None}
        self._state.webhook_error = (int(time.time()), delivery_error) if delivery_error else None
        self._state.changes.notify()

    def delete_message(self, chat_id: int, message_id: int) -> None:
        """A user (or an admin) deletes a message: later edits and replies to it fail like on Telegram."""
        message = self._state.messages.get(chat_id, message_id)
        if message is None:
            raise KeyError(f"no message {message_id} in chat {chat_id}")
        message.deleted = True
        self._state.changes.notify()

    def forget_file(self, file_id: str) -> None:
        """Telegram no longer accepts this file_id ("wrong file identifier")."""
        self._state.files.forget(file_id)

    def send_text(
        self,
        chat: Chat,
        user: User,
        text: str,
        *,
        entities: list[dict[str, Any]] | None = None,
        reply_to: int | None = None,
    ) -> int:
        """A user writes `text`; returns the message id. Entities are computed like Telegram does
        unless given (malformed ones included: they are passed through untouched)."""
        self.add_chat(chat)
        message = self._state.messages.add(chat.id, user, from_bot=False, text=text, reply_to=reply_to)
        message.entities = find_entities(text) if entities is None else list(entities)
        self._state.updates.push("message", message_json(self._state, message))
        return message.message_id

    def send_edited_text(
        self,
        chat: Chat,
        user: User,
        message_id: int,
        text: str,
        *,
        entities: list[dict[str, Any]] | None = None,
    ) -> None:
        message = self._state.messages.get(chat.id, message_id)
        if message is None or message.from_bot:
            raise KeyError(f"no message {message_id} of a user in chat {chat.id}")
        message.text = text
        message.entities = find_entities(text) if entities is None else list(entities)
        message.edit_date = int(time.time())
        message.history.append(Version(text, tuple(message.entities), None, time.monotonic(), text))
        self._state.updates.push("edited_message", message_json(self._state, message))

    def press_button(self, chat: Chat, user: User, message_id: int, callback_data: str | bytes) -> str:
        """A user presses an inline button under a bot message; returns the callback query id.

        The data is whatever the (possibly modified) client sends, not necessarily the button's:
        any text, or any bytes. Bytes that are not UTF-8 arrive as lone surrogates (JSON `\\udcXX`
        escapes), the most hostile text a JSON string can carry.
        """
        if isinstance(callback_data, bytes):
            callback_data = callback_data.decode("utf-8", "surrogateescape")
        query_id = str(secrets.randbits(63))
        message = self._state.messages.get(chat.id, message_id)
        if message is not None and not message.deleted:
            shown: dict[str, Any] = message_json(self._state, message)
        else:
            shown = {"chat": chat.to_api(), "message_id": message_id, "date": 0}
        self._state.callback_queries[query_id] = user
        self._state.updates.push(
            "callback_query",
            {
                "id": query_id,
                "from": user.to_api(),
                "message": shown,
                "chat_instance": str(abs(hash((chat.id, self.bot.id)))),
                "data": callback_data,
            },
        )
        return query_id

    def take_updates(self) -> list[dict[str, Any]]:
        """Hand over the pending updates and confirm them, as one getUpdates and the next offset
        would: for tests that feed a dispatcher in-process instead of letting the bot poll."""
        updates = self._state.updates.deliverable()
        if updates:
            self._state.updates.confirm(int(updates[-1]["update_id"]) + 1)
        return updates

    def send_inline_query(
        self, user: User, query: str, *, offset: str = "", chat_type: str | None = "sender"
    ) -> str:
        """A user types `@bot query`; returns the inline query id."""
        query_id = str(secrets.randbits(63))
        self._state.inline_queries[query_id] = user
        data: dict[str, Any] = {"id": query_id, "from": user.to_api(), "query": query, "offset": offset}
        if chat_type is not None:
            data["chat_type"] = chat_type
        self._state.updates.push("inline_query", data)
        return query_id

    def choose_inline_result(
        self, user: User, result_id: str, inline_message_id: str | None = None, query: str = ""
    ) -> str:
        """A user picks an inline result; returns the inline_message_id the bot can edit."""
        inline_id = inline_message_id or base64.urlsafe_b64encode(secrets.token_bytes(18)).decode()
        chosen = self._offered_result(result_id)
        markup = chosen.get("reply_markup") if chosen else None
        content = chosen.get("input_message_content") if chosen else None
        text = content.get("message_text") if isinstance(content, dict) else None
        self._state.inline_messages[inline_id] = InlineMessage(
            inline_id, user, result_id, query, markup, text=text, texts=[text]
        )
        self._state.updates.push(
            "chosen_inline_result",
            {"result_id": result_id, "from": user.to_api(), "query": query, "inline_message_id": inline_id},
        )
        return inline_id

    def migrate_group(self, old_chat_id: int, new_chat_id: int, *, by: User | None = None) -> Chat:
        """A group becomes a supergroup: service messages in both chats, and the old id stops working."""
        state = self._state
        old = state.chats.get(old_chat_id) or self.add_chat(Chat.group(old_chat_id))
        new = self.add_chat(Chat.supergroup(new_chat_id, old.title or "Test supergroup"))
        actor = by or _TELEGRAM
        note = state.messages.add(old.id, actor, from_bot=False)
        old_json = message_json(state, note) | {"migrate_to_chat_id": new.id}
        state.migrated[old.id] = new.id
        note = state.messages.add(new.id, actor, from_bot=False)
        new_json = message_json(state, note) | {"migrate_from_chat_id": old.id}
        state.updates.push("message", old_json)
        state.updates.push("message", new_json)
        return new

    def _offered_result(self, result_id: str) -> dict[str, Any] | None:
        """The latest inline answer's result of that id: what the user's chosen message shows."""
        for answer in reversed(self._state.journal.inline_answers):
            for result in answer.results:
                if str(result.get("id")) == result_id:
                    return result
        return None
