"""What a yt-dlp run comes to, as the Downloader port says it: a `ToolFailure` with the reason in
yt-dlp's own words, or the one file it produced in its staging folder."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from returns.result import Failure, Result, Success

from adapters.process import Exit
from adapters.ytdlp.oversize import Oversize
from ports.media import ToolFailure

_LEFTOVER_SUFFIXES = (".json", ".part", ".ytdl", ".temp", ".tmp")


def run_failure(outcome: Exit) -> ToolFailure:
    return ToolFailure(
        stderr_tail=outcome.stderr_tail,
        exit_code=outcome.exit_code,
        signal=outcome.signal,
        timed_out_after=outcome.timed_out_after,
        aborted=outcome.aborted,
    )


def oversize_failure(outcome: Exit, oversize: Oversize) -> ToolFailure:
    return ToolFailure(
        stderr_tail=outcome.stderr_tail + f"ERROR: {oversize.reason()}\n",
        exit_code=outcome.exit_code,
        signal=outcome.signal,
        too_large_bytes=oversize.bytes_seen,
    )


def refused_url(url: str) -> ToolFailure | None:
    try:
        parts = urlsplit(url)
    except ValueError:
        parts = None
    if parts is not None and parts.scheme.lower() in {"http", "https"} and parts.hostname:
        return None
    scheme = parts.scheme if parts is not None and parts.scheme else "none"
    return ToolFailure(
        stderr_tail=f"ERROR: Unsupported URL scheme {scheme!r}: only http and https links are fetched\n",
        exit_code=None,
    )


def produced_file(staging: Path, outcome: Exit) -> Result[Path, ToolFailure]:
    try:
        produced = sorted(
            p for p in staging.iterdir() if p.is_file() and not p.name.endswith(_LEFTOVER_SUFFIXES)
        )
    except OSError as e:
        return Failure(ToolFailure(f"ERROR: could not read the staging folder: {e}\n", exit_code=None))
    if len(produced) == 1:
        return Success(produced[0])
    names = ", ".join(p.name for p in produced) or "none"
    return Failure(
        ToolFailure(
            stderr_tail=outcome.stderr_tail + f"ERROR: expected one downloaded file, found {names}\n",
            exit_code=outcome.exit_code,
        )
    )
