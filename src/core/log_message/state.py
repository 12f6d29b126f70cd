"""Where a job's log message is and where it stands, as it travels in the job's payload from
attempt to attempt."""

from __future__ import annotations

from dataclasses import dataclass, field

from ports.json import JsonValue, Payload


@dataclass(frozen=True, slots=True)
class LogAddress:
    """The chat the log message is in, and the user's message it replies to."""

    chat_id: int
    reply_to: int | None


@dataclass
class LogState:
    message_ids: list[int] = field(default_factory=list)
    """The log message, and one more per 4096 characters of a long (verbose) log."""
    text: str = ""
    """The lasting lines (video info, ⚠️ retries, 💥, verbose output): what every attempt appends to."""
    delivered: list[str] = field(default_factory=list)
    """What each message shows now, so an unchanged one is not edited again."""

    def to_json(self) -> Payload:
        return {"message_ids": list(self.message_ids), "text": self.text, "delivered": list(self.delivered)}

    @classmethod
    def from_json(cls, value: JsonValue) -> LogState:
        if not isinstance(value, dict):
            return cls()
        ids, text, delivered = value.get("message_ids"), value.get("text"), value.get("delivered")
        return cls(
            [i for i in ids if isinstance(i, int)] if isinstance(ids, list) else [],
            text if isinstance(text, str) else "",
            [d for d in delivered if isinstance(d, str)] if isinstance(delivered, list) else [],
        )
