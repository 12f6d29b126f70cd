"""One line per event: `key=value` text or JSON, with the fields the caller passed as `extra`.

An error is one short `error=Type: message` an operator can read. Its traceback is for whoever
debugs: the text format shows it only at debug level, the JSON format always, in a field of its
own (`traceback`) that log tools fold away.
"""

from __future__ import annotations

import json
import logging
from typing import Any

_STANDARD = set(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {"message", "asctime"}


def _extras(record: logging.LogRecord) -> dict[str, Any]:
    return {k: v for k, v in record.__dict__.items() if k not in _STANDARD and not k.startswith("_")}


def error_summary(record: logging.LogRecord) -> str | None:
    """`Type: message` of the logged exception, on one line; None when none was logged."""
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
            f"ts={self.formatTime(record, '%Y-%m-%dT%H:%M:%S')}",
            f"level={record.levelname.lower()}",
            f"logger={record.name}",
            f"msg={_quote(record.getMessage())}",
        ]
        parts += [f"{k}={_quote(str(v))}" for k, v in _extras(record).items() if v is not None]
        if (summary := error_summary(record)) is not None:
            parts.append(f"error={_quote(summary)}")
            if self._tracebacks and record.exc_info:
                parts.append(f"traceback={_quote(self.formatException(record.exc_info))}")
        return " ".join(parts)


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "ts": self.formatTime(record, "%Y-%m-%dT%H:%M:%S"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
            **{k: v for k, v in _extras(record).items() if v is not None},
        }
        if (summary := error_summary(record)) is not None and record.exc_info:
            data["error"] = summary
            data["traceback"] = self.formatException(record.exc_info)
        return json.dumps(data, default=str, ensure_ascii=False)


def _quote(text: str) -> str:
    if text and not any(c in text for c in ' "=\n\t'):
        return text
    return json.dumps(text, ensure_ascii=False)
