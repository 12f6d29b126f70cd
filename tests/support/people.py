"""The people and chats the fake Bot API knows in the integration tests."""

from __future__ import annotations

from testkit.telegram import Chat, User

ALICE = User(1337, "Alice", username="alice")
BOB = User(4242, "Bob")
PRIVATE = Chat.private(ALICE)
GROUP = Chat.group(-4001, "Friends")
