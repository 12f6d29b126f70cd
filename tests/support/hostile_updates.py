"""Hostile updates of every kind the bot subscribes to, for the fuzz test.

Each one is made through the fake Bot API's driver, so the fake knows every chat and message the
bot may answer, then bent the way a modified client or an odd chat bends them: huge and empty
strings, lone surrogates, negative and enormous ids, entities outside the text, optional fields
missing, references to what the bot made for somebody else.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from testkit.telegram import Chat, FakeBotApi, User

SHORT = "https://videos.example/v/short"
LONG = "https://videos.example/v/long"
LINKS = (
    SHORT,
    LONG,
    "https://unknown.example/page",  # yt-dlp finds nothing
    "https://internal.test/admin",  # resolves to a private address
    "videos.example/v/short",  # a bare link gets https://
    "ftp://videos.example/x",
    "https://" + "a" * 300 + ".example/x",
)
COMMANDS = ("/start", "/help", "/status", "/verbose", "/start@vidrelay_test_bot", "/verbose@elsewhere_bot")
ADMIN = User(4242, "Admin")

INT64 = st.integers(-(2**63), 2**63 - 1)
EDGE_IDS = st.sampled_from([0, 1, -1, 2**31 - 1, -(2**31), 2**53, 2**63 - 1, -(2**63)])
USER_IDS = st.one_of(st.integers(1, 10**10), EDGE_IDS, INT64)
GROUP_IDS = st.one_of(st.integers(-(10**12) + 1, -1), EDGE_IDS, INT64)
SUPERGROUP_IDS = st.integers(-1009999999999, -1000000000001)

ODD_CHARACTERS = st.characters(categories=["Cs", "Cf", "Co", "Mn", "Zl", "Zp", "Cc", "So"])
HOSTILE_TEXT = st.one_of(
    st.text(max_size=30),
    st.text(ODD_CHARACTERS, max_size=12),
    st.sampled_from(["", " ", "\u202e", "\x00", "<b>", "</a>", "&amp;", '<a href="x">', "\ufeff"]),
    st.builds(lambda n, c: c * n, st.integers(4000, 9000), st.sampled_from(["A", "😀", "\udcff", "<"])),
)
ENTITY_TYPES = st.sampled_from(["url", "text_link", "bot_command", "bold", "mention", "made_up"])
WILD_INT = st.one_of(st.integers(-5, 50), st.integers(-(2**31), 2**31), EDGE_IDS)
HOSTILE_ENTITIES = st.lists(
    st.fixed_dictionaries(
        {"type": ENTITY_TYPES, "offset": WILD_INT, "length": WILD_INT},
        optional={"url": st.one_of(st.sampled_from(LINKS), HOSTILE_TEXT)},
    ),
    max_size=4,
)


@st.composite
def link_texts(draw: st.DrawFn) -> str:
    parts = draw(
        st.lists(st.one_of(st.sampled_from(LINKS), HOSTILE_TEXT, st.sampled_from(COMMANDS)), max_size=4)
    )
    if draw(st.booleans()):
        parts.append(draw(st.sampled_from(LINKS)))
    return " ".join(parts)


@st.composite
def users(draw: st.DrawFn) -> User:
    return User(
        draw(USER_IDS),
        draw(HOSTILE_TEXT.filter(bool) | st.just("Test")),
        username=draw(st.none() | HOSTILE_TEXT),
        last_name=draw(st.none() | HOSTILE_TEXT),
        language_code=draw(st.none() | st.sampled_from(["en", "", "zz-ZZ"])),
    )


@st.composite
def group_chats(draw: st.DrawFn) -> Chat:
    kind = draw(st.sampled_from(["group", "supergroup", "odd"]))
    title = draw(st.none() | HOSTILE_TEXT)
    if kind == "group":
        return Chat(draw(st.integers(-(10**12) + 1, -1)), "group", title=title)
    if kind == "supergroup":
        return Chat(draw(SUPERGROUP_IDS), "supergroup", title=title)
    return Chat(draw(GROUP_IDS), draw(st.sampled_from(["group", "supergroup"])), title=title)


@dataclass
class UpdateMade:
    """One update as the bot will get it, and which chats replying to it may write to."""

    raw: dict[str, Any]
    kind: str
    chat_id: int | None


@dataclass
class Stream:
    """One example's world: a few users and chats, and what the bot made in them so far."""

    api: FakeBotApi
    draw: st.DrawFn
    users: list[User]
    chats: list[Chat]
    posted: list[tuple[Chat, User, int]] = field(default_factory=list)
    offers: list[tuple[User, str, str]] = field(default_factory=list)
    """(user, query, result id) of every inline result the bot answered with."""
    migrated: dict[int, int] = field(default_factory=dict)
    """Old group → the supergroup it became (Telegram refuses the old id, naming the new one)."""

    @classmethod
    def start(cls, api: FakeBotApi, draw: st.DrawFn) -> Stream:
        people = draw(st.lists(users(), min_size=1, max_size=3, unique_by=lambda u: u.id))
        if draw(st.booleans()):
            people.append(ADMIN)
        groups = draw(st.lists(group_chats(), min_size=1, max_size=3, unique_by=lambda c: c.id))
        privates = [Chat.private(u) for u in people if u.id not in {g.id for g in groups}]
        return cls(api, draw, people, groups + privates)

    # What a user does -----------------------------------------------------------------------

    def next_updates(self) -> list[UpdateMade]:
        """What one thing a user (or Telegram) does sends the bot: one update, or two."""
        kind = self.draw(st.sampled_from(KINDS))
        return [self._bend(made) for made in ACTIONS[kind](self)]

    def _post(self) -> list[UpdateMade]:
        chat, user = self._chat(), self._user()
        text = self.draw(link_texts())
        entities = self.draw(HOSTILE_ENTITIES) if self.draw(st.integers(0, 3)) == 0 else None
        message_id = self.api.send_text(chat, user, text, entities=entities)
        self.posted.append((chat, user, message_id))
        return self._one("message", chat.id)

    def _long_video(self) -> list[UpdateMade]:
        """A member posts a long video in a group: the bot asks first, and its buttons exist."""
        groups = [c for c in self.chats if c.type != "private"]
        chat, user = self.draw(st.sampled_from(groups)), self._user()
        message_id = self.api.send_text(chat, user, f"{self.draw(st.text(max_size=8))} {LONG}")
        self.posted.append((chat, user, message_id))
        return self._one("message", chat.id)

    def _edit(self) -> list[UpdateMade]:
        if not self.posted or self.draw(st.booleans()):
            # A message the bot never read: its own update is lost on the way.
            chat, user = self._chat(), self._user()
            message_id = self.api.send_text(chat, user, self.draw(HOSTILE_TEXT))
            self.api.take_updates()
        else:
            chat, user, message_id = self.draw(st.sampled_from(self.posted))
        self.api.send_edited_text(chat, user, message_id, self.draw(link_texts()))
        return self._one("edited_message", chat.id)

    def _press(self) -> list[UpdateMade]:
        chat, user = self._chat(), self._user()
        buttons = self._bot_buttons()
        own = [(m, d) for c, m, d in buttons if c == chat.id]
        choice = self.draw(st.sampled_from(["own", "foreign", "tampered", "junk", "bytes"]))
        if choice == "own" and own:
            message_id, data = self.draw(st.sampled_from(own))
        elif choice in ("foreign", "tampered") and buttons:
            _, message_id, data = self.draw(st.sampled_from(buttons))
            message_id = self.draw(st.sampled_from([message_id, *(m for m, _ in own)]))
            data = _tamper(data, self.draw(st.integers(0, 63))) if choice == "tampered" else data
        else:
            message_id = self.draw(st.sampled_from([*(m for m, _ in own), 1]) | WILD_INT)
            data = self.draw(st.binary(max_size=64)) if choice == "bytes" else self.draw(HOSTILE_TEXT)
        self.api.press_button(chat, user, message_id, data)
        return self._one("callback_query", chat.id)

    def _inline(self) -> list[UpdateMade]:
        user = self._user()
        query = self.draw(st.sampled_from([SHORT, SHORT, *LINKS]) | HOSTILE_TEXT)
        chat_type = self.draw(
            st.sampled_from(["sender", "private", "group", "supergroup", "channel"]) | st.none()
        )
        self.api.send_inline_query(user, query, chat_type=chat_type)
        return self._one("inline_query", None)

    def _choose(self) -> list[UpdateMade]:
        user = self._user()
        if self.offers and self.draw(st.booleans()):
            offered_to, query, result_id = self.draw(st.sampled_from(self.offers))
            # Mostly what was offered, as offered; now and then somebody else, another link, a
            # tampered id.
            user = offered_to if self.draw(st.integers(0, 3)) else self.draw(st.sampled_from(self.users))
            if self.draw(st.integers(0, 3)) == 0:
                query = self.draw(st.sampled_from(LINKS))
            if self.draw(st.integers(0, 3)) == 0:
                result_id = _tamper(result_id, self.draw(st.integers(0, 63)))
        else:
            query = self.draw(st.sampled_from(LINKS) | HOSTILE_TEXT)
            result_id = self.draw(st.sampled_from(["full", "no_caption", "no_source", "0"]) | HOSTILE_TEXT)
        self.api.choose_inline_result(user, result_id or "0", query=query)
        return self._one("chosen_inline_result", None)

    def _migrate(self) -> list[UpdateMade]:
        basic = [c for c in self.chats if c.type == "group" and -(10**12) < c.id < 0]
        taken = {c.id for c in self.chats}
        if basic and self.draw(st.booleans()):
            old = self.draw(st.sampled_from(basic))
            new = self.api.migrate_group(old.id, self.draw(SUPERGROUP_IDS.filter(lambda i: i not in taken)))
            # Nobody writes in the old group any more: it lives on as the supergroup.
            self.migrated[old.id] = new.id
            self.chats = [c for c in self.chats if c.id != old.id] + [new]
            self.posted = [p for p in self.posted if p[0].id != old.id]
            notice_old, notice_new = self.api.take_updates()
            return [UpdateMade(notice_old, "message", old.id), UpdateMade(notice_new, "message", new.id)]
        # A notice pointing anywhere: from any chat, to any id (somebody's private chat included).
        chat = self._chat()
        self.api.send_text(chat, self._user(), "x")
        [update] = self.api.take_updates()
        message = update["message"]
        del message["text"]
        message.pop("entities", None)
        target = self.draw(st.sampled_from([u.id for u in self.users]) | GROUP_IDS | SUPERGROUP_IDS)
        message["migrate_to_chat_id" if self.draw(st.booleans()) else "migrate_from_chat_id"] = target
        return [UpdateMade(update, "message", chat.id)]

    # Bending the update ---------------------------------------------------------------------

    def _bend(self, made: UpdateMade) -> UpdateMade:
        raw = made.raw
        body = raw.get(made.kind)
        if not isinstance(body, dict) or self.draw(st.integers(0, 2)) != 0:
            return made
        if made.kind in ("message", "edited_message"):
            bend = self.draw(st.sampled_from(["anonymous", "caption", "no_entities", "reply", "no_title"]))
            _bend_message(body, bend, self._foreign_message())
        elif made.kind == "callback_query":
            if self.draw(st.booleans()):
                body.pop("message", None)
                body["inline_message_id"] = self.draw(HOSTILE_TEXT)
            else:
                body.pop("data", None)
        elif made.kind == "inline_query":
            body.pop("chat_type", None)
        elif made.kind == "chosen_inline_result":
            body.pop("inline_message_id", None)
        return made

    def _foreign_message(self) -> dict[str, Any]:
        chat = self.draw(st.sampled_from(self.chats))
        return {"message_id": self.draw(WILD_INT), "date": 0, "chat": chat.to_api(), "text": "elsewhere"}

    # Helpers ---------------------------------------------------------------------------------

    def _one(self, kind: str, chat_id: int | None) -> list[UpdateMade]:
        [update] = self.api.take_updates()
        return [UpdateMade(update, kind, chat_id)]

    def _chat(self) -> Chat:
        return self.draw(st.sampled_from(self.chats))

    def _user(self) -> User:
        return self.draw(st.sampled_from(self.users))

    def _bot_buttons(self) -> list[tuple[int, int, str]]:
        """(chat, message, callback data) of every button under a bot message, in every chat."""
        found = []
        for chat in self.chats:
            for message in self.api.messages(chat.id):
                for row in (message.reply_markup or {}).get("inline_keyboard", []):
                    found += [
                        (chat.id, message.message_id, b["callback_data"]) for b in row if "callback_data" in b
                    ]
        return found

    def remember_offers(self, made: UpdateMade, answers_before: int) -> None:
        if made.kind != "inline_query":
            return
        body = made.raw["inline_query"]
        user = next((u for u in self.users if u.id == body["from"]["id"]), None)
        for answer in self.api.inline_answers[answers_before:]:
            self.offers += [(user or ADMIN, body["query"], str(r["id"])) for r in answer.results]


def _bend_message(body: dict[str, Any], bend: str, foreign: dict[str, Any]) -> None:
    if bend == "anonymous":
        body.pop("from", None)
        body["sender_chat"] = copy.deepcopy(body["chat"])
    elif bend == "caption" and "text" in body:
        body["caption"] = body.pop("text")
        body["caption_entities"] = body.pop("entities", [])
    elif bend == "no_entities":
        body.pop("entities", None)
    elif bend == "reply":
        body["reply_to_message"] = foreign
    elif bend == "no_title":
        body["chat"].pop("title", None)


def _tamper(text: str, position: int) -> str:
    if not text:
        return "x"
    at = position % len(text)
    swapped = "A" if text[at] != "A" else "B"
    return text[:at] + swapped + text[at + 1 :]


ACTIONS = {
    "message": Stream._post,
    "long_video": Stream._long_video,
    "edited_message": Stream._edit,
    "callback_query": Stream._press,
    "inline_query": Stream._inline,
    "chosen_inline_result": Stream._choose,
    "migration": Stream._migrate,
}
KINDS = tuple(ACTIONS)
"""A migration and a long video arrive as messages; they are kinds of their own here so that
they are drawn as often as the others."""
UPDATE_KINDS = frozenset(ACTIONS) - {"long_video", "migration"}
