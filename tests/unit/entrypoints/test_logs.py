from __future__ import annotations

import json
import logging
import re
import sys
from datetime import datetime

from entrypoints.log_lines import JsonFormatter, KeyValueFormatter
from entrypoints.logs import PollingLines, configure_logging


def record(message: str, **extra: object) -> logging.LogRecord:
    rec = logging.LogRecord("vidrelay.engine", logging.WARNING, __file__, 1, message, None, None)
    rec.__dict__.update(extra)
    return rec


def test_text_lines_are_key_value_and_carry_the_job_fields() -> None:
    line = KeyValueFormatter().format(
        record("job failed", job_id=7, job_name="download_video", chat_id=-5, attempt=2)
    )
    assert "\n" not in line
    assert 'msg="job failed"' in line
    for field in ("job_id=7", "job_name=download_video", "chat_id=-5", "attempt=2", "level=warning"):
        assert field in line


def test_json_lines_parse_and_carry_the_job_fields() -> None:
    line = JsonFormatter().format(record("job done", job_id=9, job_name="expand_post", chat_id=1, attempt=1))
    data = json.loads(line)
    assert (data["msg"], data["job_id"], data["job_name"], data["chat_id"], data["attempt"]) == (
        "job done",
        9,
        "expand_post",
        1,
        1,
    )


def test_multiline_messages_stay_on_one_line() -> None:
    assert "\n" not in KeyValueFormatter().format(record("two\nlines"))


def failing_record() -> logging.LogRecord:
    try:
        raise ConnectionError("Cannot connect to host api.telegram.org:443\nssl:default")
    except ConnectionError:
        rec = record("getMe failed")
        rec.exc_info = sys.exc_info()
        return rec


def test_an_error_is_one_short_line_without_its_traceback() -> None:
    line = KeyValueFormatter().format(failing_record())
    assert "\n" not in line
    assert 'error="ConnectionError: Cannot connect to host api.telegram.org:443 ssl:default"' in line
    assert "Traceback" not in line
    assert "traceback=" not in line


def test_at_debug_level_the_text_line_adds_the_traceback() -> None:
    line = KeyValueFormatter(tracebacks=True).format(failing_record())
    assert "\n" not in line
    assert 'traceback="Traceback (most recent call last):' in line


def test_json_keeps_the_traceback_in_its_own_field() -> None:
    data = json.loads(JsonFormatter().format(failing_record()))
    assert data["error"] == "ConnectionError: Cannot connect to host api.telegram.org:443 ssl:default"
    assert data["traceback"].startswith("Traceback (most recent call last):")
    assert "raise ConnectionError" in data["traceback"]


def test_the_configured_level_decides_about_tracebacks() -> None:
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:
        configure_logging("text", "debug")
        formatter = root.handlers[0].formatter
        assert isinstance(formatter, KeyValueFormatter)
        assert "traceback=" in formatter.format(failing_record())
        configure_logging("text", "info")
        assert "traceback=" not in root.handlers[0].format(failing_record())
        assert root.level == logging.INFO
    finally:
        root.handlers[:], level = saved
        root.setLevel(level)


def test_the_callers_error_field_is_the_lines_one_error_in_both_formats() -> None:
    rec = failing_record()
    rec.__dict__["error"] = "nothing-here: HTTP Error 404:\nNot Found"
    line = KeyValueFormatter().format(rec)
    assert line.count(" error=") == 1
    assert 'error="nothing-here: HTTP Error 404: Not Found"' in line
    data = json.loads(JsonFormatter().format(rec))
    assert data["error"] == "nothing-here: HTTP Error 404: Not Found"
    assert data["traceback"].startswith("Traceback")


def test_timestamps_are_rfc3339_with_milliseconds_and_the_offset() -> None:
    rec = record("tick")
    rec.created = 1_700_000_000.25
    ts = json.loads(JsonFormatter().format(rec))["ts"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.250[+-]\d\d:\d\d", ts), ts
    assert datetime.fromisoformat(ts).timestamp() == 1_700_000_000.25
    assert KeyValueFormatter().format(rec).startswith(f"ts={ts} ")


def polling_record(msg: str, *args: object) -> logging.LogRecord:
    return logging.LogRecord("aiogram.dispatcher", logging.ERROR, __file__, 1, msg, args, None)


def test_aiogram_polling_failures_become_one_warning_with_the_error_field() -> None:
    failed = polling_record("Failed to fetch updates - %s: %s", "TelegramConflictError", "Conflict: webhook")
    assert PollingLines().filter(failed)
    line = KeyValueFormatter().format(failed)
    assert "level=warning" in line
    assert 'error="TelegramConflictError: Conflict: webhook"' in line
    assert not PollingLines().filter(polling_record("Sleep for %f seconds and try again... ", 1.0))
