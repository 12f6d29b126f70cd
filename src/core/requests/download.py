"""What a `download_video` job carries in its payload: ids and values only, typed at the edge."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

from core.log_message.state import LogAddress
from core.requests.payload import (
    PayloadError,
    read_dict,
    read_int,
    read_optional_int,
    read_optional_number,
    read_str,
)
from core.texts.languages import ENGLISH
from ports.json import Payload

PRIVATE = "private"


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
    as_file: bool = False
    """The chat's choice: the video as a document (the downloaded bytes, no player)."""
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
    language: str = ENGLISH
    """The catalog the chat reads every word of this job in (core.texts.languages), chosen when
    the link came: a worker, in whatever process, speaks the user's language."""
    delivered: bool = False
    """The video (or the sound) went out: written the moment Telegram said so, so that an attempt
    after a crash finishes the job instead of sending it again."""

    @property
    def private(self) -> bool:
        return self.chat_type == PRIVATE

    @property
    def log_address(self) -> LogAddress:
        """The job's log message: a reply to the user's message, in its chat."""
        return LogAddress(self.chat_id, self.message_id)

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
            delivered=False,
        )

    def to_payload(self) -> Payload:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_payload(cls, payload: Payload) -> DownloadRequest:
        """Raises ValueError when the payload is not a download request (a permanent failure)."""
        try:
            return cls(
                url=read_str(payload["url"]),
                chat_id=read_int(payload["chat_id"]),
                chat_type=read_str(payload.get("chat_type", PRIVATE)),
                message_id=read_int(payload["message_id"]),
                user_id=read_int(payload.get("user_id", 0)),
                verbose=bool(payload.get("verbose", False)),
                entry_index=read_optional_int(payload.get("entry_index")),
                confirmed=bool(payload.get("confirmed", False)),
                audio=bool(payload.get("audio", False)),
                max_height=read_optional_int(payload.get("max_height")),
                as_file=bool(payload.get("as_file", False)),
                ask_long=bool(payload.get("ask_long", True)),
                ask_longer_than=read_optional_number(payload.get("ask_longer_than")),
                info_shown=bool(payload.get("info_shown", False)),
                reported_attempt=read_int(payload.get("reported_attempt", 1)),
                log=read_dict(payload.get("log")),
                posted_at=read_optional_number(payload.get("posted_at")),
                language=read_str(payload.get("language", ENGLISH)),
                delivered=bool(payload.get("delivered", False)),
            )
        except KeyError as missing:
            raise PayloadError(f"download payload lacks {missing}") from None
