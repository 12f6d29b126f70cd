"""The bot's own HTTP servers (metrics and health, the webhook) taking their port: a port that
is in use or not allowed is a setting to fix, said in one line (exit 2), not a traceback."""

from __future__ import annotations

import os

from aiohttp import web


class ListenRefused(Exception):
    """One line naming the address, what it was for, and the setting that chose it."""


async def listen(runner: web.AppRunner, host: str, port: int, *, serving: str, setting: str) -> None:
    try:
        await web.TCPSite(runner, host, port).start()
    except OSError as error:
        await runner.cleanup()
        # aiohttp words it "error while attempting to bind on address (...)": the errno says it plainly.
        reason = os.strerror(error.errno) if error.errno else str(error)
        raise ListenRefused(f"cannot listen on {host}:{port} for {serving} ({setting}): {reason}") from None
