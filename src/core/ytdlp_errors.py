"""What a yt-dlp failure means, decided from what it said (its stderr) and how it ended.

Only `ERROR:` lines count (a WARNING is advice, not a verdict). Because yt-dlp is kept
current by the updater, an extractor that still cannot handle a URL means the URL is not
supported — retrying is pointless. Everything not recognised as permanent is transient: a
wrong "transient" costs two retries, a wrong "permanent" loses the user's video.
"""

from __future__ import annotations

import enum
import re
import signal as signals
from dataclasses import dataclass

from core import texts
from ports.media import ToolFailure
from ports.net import REFUSED_BY


class FailureKind(enum.Enum):
    NOT_A_VIDEO = "not_a_video"
    UNAVAILABLE = "unavailable"
    REFUSED = "refused"
    """The SSRF guard's proxy refused a request of the run (a redirect, a segment…)."""
    TRANSIENT = "transient"

    @property
    def permanent(self) -> bool:
        return self is not FailureKind.TRANSIENT


@dataclass(frozen=True, slots=True)
class Verdict:
    kind: FailureKind
    reason: str
    """User-facing: yt-dlp's last ERROR line without its [extractor] tag and (caused by …)."""


_NOT_A_VIDEO = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        r"unsupported url",
        r"\[reddit\] .+: no media found",
        r"\[instagram\] .+: there is no video in this post",
        r"extension \(.+\) is unusual and will be skipped",
        r"is not a valid url",
        r"no video could be found in this",
        r"does not contain a video",
        r"file:// urls are disabled",
        r"invalid url '.*': no host supplied",
    )
)

_UNAVAILABLE = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        r"unable to extract",
        r"no video formats found",
        r"private video",
        r"video unavailable",
        r"no longer available",
        r"has been removed",
        r"members[- ]only",
        r"sign in to confirm your age",
        r"age[- ]restricted",
        r"unable to download webpage: http error (403|404|410)\b",
        r"unable to download json metadata: http error (403|404|410)\b",
        r"empty media response",
        r"this video is not available",
        r"requested format is not available",
        r"only available for registered users",
        r"not available from your location",
        r"drm protected",
    )
)

_GUARD_REFUSAL = re.compile(re.escape(REFUSED_BY) + r" \[([^\[\]]*)\]")
_TAG = re.compile(r"^\s*\[[^\]]+\]\s*")
_CAUSED_BY = re.compile(r"\s*\(caused by .*\)\s*$", re.IGNORECASE | re.DOTALL)
_REPORT_HINT = re.compile(r"[;,]?\s*please report this issue on .*$", re.IGNORECASE | re.DOTALL)
_MAX_REASON = 300


def error_lines(stderr: str) -> list[str]:
    """Each ERROR line, whole. yt-dlp writes some as "ERROR: \\r[download] Got error: …": a
    carriage return inside the line, so lines are split on newlines only and the \\r pieces rejoined."""
    found = []
    for raw in stderr.split("\n"):
        pieces = [piece.strip() for piece in raw.split("\r")]
        start = next((i for i, piece in enumerate(pieces) if piece.startswith("ERROR:")), None)
        if start is not None:
            found.append(" ".join(piece for piece in pieces[start:] if piece))
    return found


def user_reason(error_line: str) -> str:
    text = error_line.strip().removeprefix("ERROR:").strip()
    text = _CAUSED_BY.sub("", _REPORT_HINT.sub("", _TAG.sub("", text))).strip()
    return text[:_MAX_REASON] or texts.UNKNOWN_ERROR


def classify_ytdlp(failure: ToolFailure) -> Verdict:
    if failure.timed_out_after is not None:
        return Verdict(FailureKind.TRANSIENT, texts.TIMED_OUT.format(seconds=failure.timed_out_after))
    lines = error_lines(failure.stderr_tail)
    if failure.signal is not None and not lines:
        return Verdict(FailureKind.TRANSIENT, texts.YTDLP_KILLED.format(signal=_signal_name(failure.signal)))
    if not lines:
        return Verdict(FailureKind.TRANSIENT, texts.YTDLP_EXITED.format(code=failure.exit_code))
    reason = user_reason(lines[-1])
    if failure.signal is not None:
        return Verdict(FailureKind.TRANSIENT, reason)
    refusal = next((m for line in lines if (m := _GUARD_REFUSAL.search(line))), None)
    if refusal is not None:
        return Verdict(FailureKind.REFUSED, texts.REFUSED.format(why=refusal.group(1))[:_MAX_REASON])
    return Verdict(_kind_of(lines), reason)


def _kind_of(lines: list[str]) -> FailureKind:
    if any(p.search(line) for line in lines for p in _NOT_A_VIDEO):
        return FailureKind.NOT_A_VIDEO
    if any(p.search(line) for line in lines for p in _UNAVAILABLE):
        return FailureKind.UNAVAILABLE
    return FailureKind.TRANSIENT


def _signal_name(number: int) -> str:
    try:
        return signals.Signals(number).name
    except ValueError:
        return str(number)
