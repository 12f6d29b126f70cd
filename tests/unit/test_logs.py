from __future__ import annotations

import json
import logging

from entrypoints.logs import JsonFormatter, KeyValueFormatter


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
