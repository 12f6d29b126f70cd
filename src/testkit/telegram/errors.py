"""Telegram's refusals, with the `error_code` and the exact wording the real Bot API answers.

The bot's error handling matches on these words, so they are copied, never paraphrased.
"""

from __future__ import annotations

from typing import Any

NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup are "
    "exactly the same as a current content and reply markup of the message"
)
WRONG_FILE_ID = "Bad Request: wrong file identifier/HTTP URL specified"
QUERY_TOO_OLD = "Bad Request: query is too old and response timeout expired or query ID is invalid"

DEFAULT_DESCRIPTIONS = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden: bot was blocked by the user",
    404: "Not Found",
    409: "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
    413: "Request Entity Too Large",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}


class ApiError(Exception):
    """A refusal, answered as `{"ok": false, "error_code": …, "description": …}`."""

    def __init__(
        self,
        code: int,
        description: str,
        *,
        retry_after: int | None = None,
        migrate_to_chat_id: int | None = None,
    ) -> None:
        super().__init__(description)
        self.code = code
        self.description = description
        self.retry_after = retry_after
        self.migrate_to_chat_id = migrate_to_chat_id

    def to_api(self) -> dict[str, Any]:
        body: dict[str, Any] = {"ok": False, "error_code": self.code, "description": self.description}
        parameters: dict[str, int] = {}
        if self.retry_after is not None:
            parameters["retry_after"] = self.retry_after
        if self.migrate_to_chat_id is not None:
            parameters["migrate_to_chat_id"] = self.migrate_to_chat_id
        if parameters:
            body["parameters"] = parameters
        return body


def bad_request(what: str) -> ApiError:
    return ApiError(400, f"Bad Request: {what}")


def cant_parse_entities(what: str) -> ApiError:
    return bad_request(f"can't parse entities: {what}")


def not_modified() -> ApiError:
    return ApiError(400, NOT_MODIFIED)


def wrong_file() -> ApiError:
    return ApiError(400, WRONG_FILE_ID)


def wrong_file_type(actual: str, expected: str) -> ApiError:
    """A file_id of one kind sent as another, e.g. a video's as an audio."""
    return bad_request(f"can't use file of type {actual.capitalize()} as {expected.capitalize()}")


def query_too_old() -> ApiError:
    return ApiError(400, QUERY_TOO_OLD)


def too_many_requests(retry_after: int) -> ApiError:
    return ApiError(429, f"Too Many Requests: retry after {retry_after}", retry_after=retry_after)


def unauthorized() -> ApiError:
    return ApiError(401, "Unauthorized")


def not_found() -> ApiError:
    return ApiError(404, "Not Found")


def too_large() -> ApiError:
    return ApiError(413, "Request Entity Too Large")


def upgraded_to_supergroup(new_chat_id: int) -> ApiError:
    return ApiError(
        400, "Bad Request: group chat was upgraded to a supergroup chat", migrate_to_chat_id=new_chat_id
    )


def blocked(chat_type: str) -> ApiError:
    if chat_type == "private":
        return ApiError(403, "Forbidden: bot was blocked by the user")
    return ApiError(403, f"Forbidden: bot was kicked from the {chat_type} chat")


def superseded_poll() -> ApiError:
    return ApiError(409, DEFAULT_DESCRIPTIONS[409])


def webhook_active() -> ApiError:
    return ApiError(
        409,
        "Conflict: can't use getUpdates method while webhook is active; "
        "use deleteWebhook to delete the webhook first",
    )
