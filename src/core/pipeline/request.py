"""What a download job carries in its payload: ids and values only, typed at the edge."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

from ports.json import JsonValue, Payload

PRIVATE = "private"


class PayloadError(ValueError):
    """A job payload that is not what its job type expects: a permanent failure."""


@dataclass
class DownloadRequest:
    url: str
    chat_id: int
    chat_type: str
    message_id: int
    user_id: int
    verbose: bool = False
    entry_index: int | None = None
    """Which entry of a multi-video post this child job is; None for the post itself."""
    confirmed: bool = False
    """A long video somebody in the group agreed to."""
    audio: bool = False
    """The sound only (sendAudio): /audio, or the chat's audio-only default."""
    max_height: int | None = None
    """The chat's quality choice when the link came; None: the best that fits."""
    ask_long: bool = True
    """Groups: a long video asks first (the chat's choice)."""
    ask_longer_than: float | None = None
    """Groups: from what length; None: the operator's default."""
    info_shown: bool = False
    reported_attempt: int = 1
    """The attempt the log already announced, so a retry after a crash still says ⚠️ once."""
    log: Payload = field(default_factory=dict)
    posted_at: float | None = None
    """When the user's message was sent (Telegram's date): the start of what the user waits."""

    @property
    def private(self) -> bool:
        return self.chat_type == PRIVATE

    def for_job(self, *, entry_index: int | None, confirmed: bool, verbose: bool) -> DownloadRequest:
        """The request another job starts from: this link and message, none of this attempt's state."""
        return replace(
            self,
            entry_index=entry_index,
            confirmed=confirmed,
            verbose=verbose,
            info_shown=False,
            reported_attempt=1,
            log={},
        )

    def to_payload(self) -> Payload:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_payload(cls, payload: Payload) -> DownloadRequest:
        """Raises ValueError when the payload is not a download request (a permanent failure)."""
        try:
            return cls(
                url=_str(payload["url"]),
                chat_id=_int(payload["chat_id"]),
                chat_type=_str(payload.get("chat_type", PRIVATE)),
                message_id=_int(payload["message_id"]),
                user_id=_int(payload.get("user_id", 0)),
                verbose=bool(payload.get("verbose", False)),
                entry_index=_optional_int(payload.get("entry_index")),
                confirmed=bool(payload.get("confirmed", False)),
                audio=bool(payload.get("audio", False)),
                max_height=_optional_int(payload.get("max_height")),
                ask_long=bool(payload.get("ask_long", True)),
                ask_longer_than=_optional_number(payload.get("ask_longer_than")),
                info_shown=bool(payload.get("info_shown", False)),
                reported_attempt=_int(payload.get("reported_attempt", 1)),
                log=_dict(payload.get("log")),
                posted_at=_optional_number(payload.get("posted_at")),
            )
        except KeyError as missing:
            raise PayloadError(f"download payload lacks {missing}") from None


@dataclass
class InlineRequest:
    url: str
    inline_message_id: str
    user_id: int
    variant: str = "full"

    def to_payload(self) -> Payload:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_payload(cls, payload: Payload) -> InlineRequest:
        try:
            return cls(
                url=_str(payload["url"]),
                inline_message_id=_str(payload["inline_message_id"]),
                user_id=_int(payload.get("user_id", 0)),
                variant=_str(payload.get("variant", "full")),
            )
        except KeyError as missing:
            raise PayloadError(f"inline payload lacks {missing}") from None


def _str(value: JsonValue) -> str:
    if not isinstance(value, str):
        raise PayloadError(f"expected a string, got {value!r}")
    return value


def _int(value: JsonValue) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise PayloadError(f"expected an integer, got {value!r}")
    return value


def _optional_int(value: JsonValue) -> int | None:
    return None if value is None else _int(value)


def _optional_number(value: JsonValue) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PayloadError(f"expected a number, got {value!r}")
    return float(value)


def _dict(value: JsonValue) -> Payload:
    return dict(value) if isinstance(value, dict) else {}
