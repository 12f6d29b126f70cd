"""The install's own secrets: keys the bot signs the data it hands out with (button callback data,
inline result ids), kept in the store so every process of one deployment signs alike."""

from __future__ import annotations

from typing import Protocol


class InstallSecrets(Protocol):
    async def install_secret(self, name: str, candidate: bytes) -> bytes:
        """The secret stored under `name`, storing `candidate` first when there is none.

        The first writer wins: every later call, in this process or any other sharing the
        store, returns that first value, never its own candidate.
        """
        ...
