"""What a `download_inline` job carries, and the variants an inline query offers of a link.

Both sides name them: the handler offers each variant as a result, the job sends the one chosen.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from core.requests.payload import PayloadError, read_int, read_str
from core.texts.languages import ENGLISH
from ports.json import Payload

VARIANTS = ("full", "no_caption", "no_source")
"""The video with caption and source button, without caption, without source."""
AUDIO_VARIANT = "audio"
OFFERED = (*VARIANTS, AUDIO_VARIANT)
"""What a chosen result may ask for: anything else is a cached result, already the message."""


@dataclass
class InlineRequest:
    url: str
    inline_message_id: str
    user_id: int
    variant: str = "full"
    language: str = ENGLISH
    """The catalog the user reads the placeholder's last words in (a 💥 line)."""

    def to_payload(self) -> Payload:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_payload(cls, payload: Payload) -> InlineRequest:
        try:
            return cls(
                url=read_str(payload["url"]),
                inline_message_id=read_str(payload["inline_message_id"]),
                user_id=read_int(payload.get("user_id", 0)),
                variant=read_str(payload.get("variant", "full")),
                language=read_str(payload.get("language", ENGLISH)),
            )
        except KeyError as missing:
            raise PayloadError(f"inline payload lacks {missing}") from None
