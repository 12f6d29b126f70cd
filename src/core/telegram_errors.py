"""What a refusal of the Bot API means, decided from its code and description."""

from __future__ import annotations

import enum
import re

from ports.messenger import MessengerError


class ApiVerdict(enum.Enum):
    PERMANENT = "permanent"
    RETRY_AFTER = "retry_after"
    TRANSIENT = "transient"


_PERMANENT_400 = re.compile(r"chat not found|message to be replied not found", re.IGNORECASE)


def classify_telegram(error: MessengerError) -> ApiVerdict:
    if error.code == 429 or error.retry_after is not None:
        return ApiVerdict.RETRY_AFTER
    if error.code is None or error.code >= 500:
        return ApiVerdict.TRANSIENT
    if error.code == 403 or _PERMANENT_400.search(error.description):
        return ApiVerdict.PERMANENT
    # Any other 4xx is our request being wrong; sending it again will not make it right.
    return ApiVerdict.PERMANENT


def is_not_modified(error: MessengerError) -> bool:
    return "message is not modified" in error.description.lower()


def is_parse_error(error: MessengerError) -> bool:
    return "can't parse entities" in error.description.lower()


def is_wrong_file_id(error: MessengerError) -> bool:
    text = error.description.lower()
    return "wrong file identifier" in text or "wrong remote file identifier" in text


def is_message_gone(error: MessengerError) -> bool:
    text = error.description.lower()
    return any(
        s in text
        for s in ("message to edit not found", "message can't be edited", "message to be replied not found")
    )
