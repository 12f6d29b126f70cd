"""The end of a child's stderr: what a failure is classified and reported from."""

from __future__ import annotations

from collections import deque

STDERR_TAIL_BYTES = 64 * 1024


class TailBuffer:
    """The last `limit` bytes of a stream of lines, cut at a line boundary."""

    def __init__(self, limit: int = STDERR_TAIL_BYTES) -> None:
        self._limit = limit
        self._lines: deque[str] = deque()
        self._size = 0

    def add(self, line: str) -> None:
        encoded = len(line.encode()) + 1
        if encoded > self._limit:
            line = line.encode()[-(self._limit - 1) :].decode(errors="ignore")
            encoded = len(line.encode()) + 1
        self._lines.append(line)
        self._size += encoded
        while self._size > self._limit:
            self._size -= len(self._lines.popleft().encode()) + 1

    def text(self) -> str:
        return "".join(line + "\n" for line in self._lines)
