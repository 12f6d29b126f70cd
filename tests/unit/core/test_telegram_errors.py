"""The Bot API's refusals, classified from the wordings Telegram uses."""

from __future__ import annotations

import pytest

from core.telegram_errors import (
    ApiVerdict,
    classify_telegram,
    is_message_gone,
    is_not_modified,
    is_parse_error,
    is_wrong_file_id,
)
from ports.messenger import MessengerError
from tests.support.messenger import EDIT_GONE, NOT_MODIFIED, PARSE_ERROR, WRONG_FILE_ID


@pytest.mark.parametrize(
    ("error", "verdict"),
    [
        (MessengerError("Too Many Requests: retry after 20", 429, 20.0), ApiVerdict.RETRY_AFTER),
        (MessengerError("Too Many Requests", 429), ApiVerdict.RETRY_AFTER),
        (MessengerError("Bad Request: slow down", 400, 3.0), ApiVerdict.RETRY_AFTER),
        (MessengerError("Internal Server Error", 500), ApiVerdict.TRANSIENT),
        (MessengerError("Bad Gateway", 502), ApiVerdict.TRANSIENT),
        (MessengerError("Cannot connect to host api.telegram.org"), ApiVerdict.TRANSIENT),
        (MessengerError("Forbidden: bot was blocked by the user", 403), ApiVerdict.PERMANENT),
        (MessengerError("Bad Request: chat not found", 400), ApiVerdict.PERMANENT),
        (MessengerError("Bad Request: message to be replied not found", 400), ApiVerdict.PERMANENT),
        (MessengerError("Bad Request: VIDEO_CONTENT_TYPE_INVALID", 400), ApiVerdict.PERMANENT),
    ],
)
def test_what_a_refusal_means_for_a_retry(error: MessengerError, verdict: ApiVerdict) -> None:
    assert classify_telegram(error) is verdict


def test_a_stale_file_id_is_told_apart_from_other_refusals() -> None:
    assert is_wrong_file_id(MessengerError(WRONG_FILE_ID, 400))
    assert is_wrong_file_id(MessengerError("Bad Request: wrong remote file identifier specified", 400))
    assert not is_wrong_file_id(MessengerError("Bad Request: chat not found", 400))


def test_an_edit_that_changes_nothing_is_told_apart() -> None:
    assert is_not_modified(MessengerError(NOT_MODIFIED, 400))
    assert not is_not_modified(MessengerError(EDIT_GONE, 400))


def test_html_telegram_cannot_parse_is_told_apart() -> None:
    assert is_parse_error(MessengerError(PARSE_ERROR, 400))
    assert not is_parse_error(MessengerError(NOT_MODIFIED, 400))


@pytest.mark.parametrize(
    "description",
    [EDIT_GONE, "Bad Request: message can't be edited", "Bad Request: message to be replied not found"],
)
def test_a_message_the_user_deleted_is_gone(description: str) -> None:
    assert is_message_gone(MessengerError(description, 400))


def test_other_refusals_are_not_a_gone_message() -> None:
    assert not is_message_gone(MessengerError(NOT_MODIFIED, 400))
    assert not is_message_gone(MessengerError("Forbidden: bot was kicked", 403))
