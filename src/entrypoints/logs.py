"""Where the log goes and how much of it: stderr, one line per event, in the operator's format."""

from __future__ import annotations

import logging
import sys

from entrypoints.log_lines import JsonFormatter, KeyValueFormatter

LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING, "error": logging.ERROR}


def configure_logging(log_format: str, level: str = "info") -> None:
    number = LEVELS.get(level, logging.INFO)
    handler = logging.StreamHandler(sys.stderr)
    debugging = number <= logging.DEBUG
    handler.setFormatter(JsonFormatter() if log_format == "json" else KeyValueFormatter(tracebacks=debugging))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(number)
    for noisy in ("aiogram.event", "asyncio"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    polling = logging.getLogger("aiogram.dispatcher")
    if not any(isinstance(f, PollingLines) for f in polling.filters):
        polling.addFilter(PollingLines())


class PollingLines(logging.Filter):
    """aiogram's polling loop in the bot's own words: a failed getUpdates is one warning with its
    `error` field (not an error line with the error inside its text, then a second line about the
    backoff); /healthz turns a Telegram that stays away into a 503."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg == "Failed to fetch updates - %s: %s" and isinstance(record.args, tuple):
            kind, error = record.args
            record.msg, record.args = "getUpdates failed: polling asks again after a backoff", ()
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.error = f"{kind}: {error}"
        elif str(record.msg).startswith("Sleep for %f seconds and try again"):
            return False
        elif str(record.msg).startswith("Connection established (tryings"):
            record.msg, record.args = "getUpdates answers again: polling goes on", ()
        return True
