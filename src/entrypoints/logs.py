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
