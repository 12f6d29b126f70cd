"""The users and chats of the fake Telegram, and their Bot API objects."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class User:
    id: int
    first_name: str = "Test"
    username: str | None = None
    last_name: str | None = None
    is_bot: bool = False
    language_code: str | None = "en"

    def to_api(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        if self.last_name:
            data["last_name"] = self.last_name
        if self.username:
            data["username"] = self.username
        if self.language_code and not self.is_bot:
            data["language_code"] = self.language_code
        return data


@dataclass(frozen=True, slots=True)
class Chat:
    """A private chat has the user's id; groups have negative ids, supergroups -100…."""

    id: int
    type: str
    title: str | None = None
    username: str | None = None
    first_name: str | None = None

    @classmethod
    def private(cls, user: User) -> Chat:
        return cls(user.id, "private", username=user.username, first_name=user.first_name)

    @classmethod
    def group(cls, chat_id: int, title: str = "Test group") -> Chat:
        if chat_id >= 0:
            raise ValueError("group chat ids are negative")
        return cls(chat_id, "group", title=title)

    @classmethod
    def supergroup(cls, chat_id: int, title: str = "Test supergroup") -> Chat:
        if not str(chat_id).startswith("-100"):
            raise ValueError("supergroup chat ids start with -100")
        return cls(chat_id, "supergroup", title=title)

    @property
    def is_group(self) -> bool:
        return self.type in {"group", "supergroup"}

    def to_api(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "type": self.type}
        if self.title is not None:
            data["title"] = self.title
        if self.username is not None:
            data["username"] = self.username
        if self.first_name is not None:
            data["first_name"] = self.first_name
        return data
