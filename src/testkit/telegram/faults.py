"""Refusals a test asked for: the next calls of a method answer with them instead of running."""

from __future__ import annotations

from dataclasses import dataclass

from testkit.telegram.errors import DEFAULT_DESCRIPTIONS, ApiError, too_many_requests


@dataclass(slots=True)
class _Fault:
    method: str
    code: int
    description: str
    retry_after: int | None
    chat_id: int | None
    remaining: int


class Faults:
    def __init__(self) -> None:
        self._pending: list[_Fault] = []

    def add(
        self,
        method: str,
        *,
        code: int,
        retry_after: int | None,
        description: str | None,
        times: int,
        chat_id: int | None,
    ) -> None:
        if code == 429 and retry_after is None:
            retry_after = 1
        if description is None:
            if code == 429:
                description = too_many_requests(retry_after or 1).description
            else:
                description = DEFAULT_DESCRIPTIONS.get(code, "Internal Server Error")
        self._pending.append(_Fault(method.lower(), code, description, retry_after, chat_id, times))

    def raise_for(self, method: str, chat_id: int | None) -> None:
        """Raise the first pending refusal for this call, if any, and count it as served."""
        for fault in self._pending:
            if fault.method != method.lower() or fault.remaining <= 0:
                continue
            if fault.chat_id is not None and fault.chat_id != chat_id:
                continue
            fault.remaining -= 1
            self._pending = [f for f in self._pending if f.remaining > 0]
            raise ApiError(fault.code, fault.description, retry_after=fault.retry_after)
