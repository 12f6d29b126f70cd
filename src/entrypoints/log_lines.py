"""One line per event: `key=value` text or JSON, with the fields the caller passed as `extra`.

Every line starts with an RFC 3339 timestamp (milliseconds, the zone's offset), the level and the
logger. A failure carries one `error` field an operator can read: the caller's `extra={"error":
…}` (a job's reason), else `Type: message` of the logged exception. Its traceback is for whoever
debugs: the text format shows it only at debug level, the JSON format always, in a field of its
own (`traceback`) that log tools fold away.
"""

from __future__ import annotations

import json
import logging
from datetime import datetime
from typing import Any

_STANDARD = set(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {"message", "asctime"}
ERROR_FIELD = "error"


def _extras(record: logging.LogRecord) -> dict[str, Any]:
    return {
        k: v
        for k, v in record.__dict__.items()
        if k not in _STANDARD and not k.startswith("_") and k != ERROR_FIELD and v is not None
    }


def timestamp(record: logging.LogRecord) -> str:
    """RFC 3339 with milliseconds and the offset: `2025-01-01T03:00:00.123+00:00`."""
    return datetime.fromtimestamp(record.created).astimezone().isoformat(timespec="milliseconds")


def error_summary(record: logging.LogRecord) -> str | None:
    """The line's error on one line: the caller's `error` field, else `Type: message` of the
    logged exception; None when the line reports none."""
    given = record.__dict__.get(ERROR_FIELD)
    if given is not None:
        return " ".join(str(given).split()) or None
    if not record.exc_info or record.exc_info[1] is None:
        return None
    error = record.exc_info[1]
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


class KeyValueFormatter(logging.Formatter):
    def __init__(self, *, tracebacks: bool = False) -> None:
        super().__init__()
        self._tracebacks = tracebacks

    def format(self, record: logging.LogRecord) -> str:
        parts = [
            f"ts={timestamp(record)}",
            f"level={record.levelname.lower()}",
            f"logger={record.name}",
            f"msg={_quote(record.getMessage())}",
        ]
        parts += [f"{k}={_quote(str(v))}" for k, v in _extras(record).items()]
        if (summary := error_summary(record)) is not None:
            parts.append(f"error={_quote(summary)}")
        if self._tracebacks and record.exc_info:
            parts.append(f"traceback={_quote(self.formatException(record.exc_info))}")
        return " ".join(parts)


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "ts": timestamp(record),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
            **_extras(record),
        }
        if (summary := error_summary(record)) is not None:
            data[ERROR_FIELD] = summary
        if record.exc_info:
            data["traceback"] = self.formatException(record.exc_info)
        return json.dumps(data, default=str, ensure_ascii=False)


def _quote(text: str) -> str:
    if text and not any(c in text for c in ' "=\n\t'):
        return text
    return json.dumps(text, ensure_ascii=False)
