"""A video's turn in its chat: a worker waits a moment for it, never the 40 s a busy group may take.

Telegram lets a group take 20 messages a minute; 25 videos for one group would otherwise hold
every worker until the minute is over, and every other chat's video with them. A job whose chat
is busy for longer than `MAX_TURN_WAIT_SECONDS` steps aside (`Deferred`) until its turn comes.
"""

from __future__ import annotations

from ports.clock import Clock
from ports.pacing import SendPacing, Turn

MAX_TURN_WAIT_SECONDS = 3.0


class VideoTurns:
    def __init__(self, pacing: SendPacing, clock: Clock) -> None:
        self._pacing = pacing
        self._clock = clock

    def not_before(self, chat_id: int, count: int = 1) -> float | None:
        """When to come back, if a video (`count` videos: an album) for this chat would wait too
        long now; else None."""
        wait = self._pacing.wait_seconds(chat_id, Turn.VIDEO, count)
        return self._clock.now() + wait if wait > MAX_TURN_WAIT_SECONDS else None
