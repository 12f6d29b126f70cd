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
from core.texts import reasons
from core.texts.phrase import Phrase
from ports.media import ToolFailure
from ports.net import REFUSED_BY


class FailureKind(enum.Enum):
    NOT_A_VIDEO = "not_a_video"
    UNAVAILABLE = "unavailable"
    """Gone or broken in a way no class below names (a 404 page, no formats, DRM)."""
    BOT_CHECK = "bot_check"
    """The site takes the server for a bot ("Sign in to confirm you're not a bot", a captcha)."""
    SIGN_IN = "sign_in"
    """Only a signed-in account may see it."""
    AGE_GATE = "age_gate"
    GEO_BLOCKED = "geo_blocked"
    PRIVATE = "private"
    REMOVED = "removed"
    MEMBERS_ONLY = "members_only"
    REFUSED = "refused"
    """The SSRF guard's proxy refused a request of the run (a redirect, a segment…)."""
    TRANSIENT = "transient"

    @property
    def permanent(self) -> bool:
        return self is not FailureKind.TRANSIENT

    @property
    def site_verdict(self) -> bool:
        """The site refused this server the video, and said why: retrying would only ask again."""
        return self in SITE_VERDICTS


SITE_VERDICTS = frozenset(
    {
        FailureKind.BOT_CHECK,
        FailureKind.SIGN_IN,
        FailureKind.AGE_GATE,
        FailureKind.GEO_BLOCKED,
        FailureKind.PRIVATE,
        FailureKind.REMOVED,
        FailureKind.MEMBERS_ONLY,
    }
)


@dataclass(frozen=True, slots=True)
class Verdict:
    kind: FailureKind
    reason: str
    """User-facing: yt-dlp's last ERROR line without its [extractor] tag and (caused by …); for
    a site verdict, what it means in plain words."""
    site: str | None = None
    """The extractor that said so (the deciding line's [tag]: "youtube", "generic"), if it did."""


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


def _patterns(*patterns: str) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p, re.IGNORECASE) for p in patterns)


# Each site verdict in yt-dlp's wordings (its extractors' ExtractorError texts and the sites'
# own reasons it passes on), most specific first: YouTube's age gate and private video also say
# "Sign in", and "Video unavailable." leads its removal and geo-block reasons.
_SITE_VERDICTS: tuple[tuple[FailureKind, tuple[re.Pattern[str], ...]], ...] = (
    (
        FailureKind.BOT_CHECK,
        _patterns(
            r"confirm you.re not a bot",
            r"anti-bot challenge",
            r"suspected as a bot",
            r"captcha",
            r"has been rate-limited by youtube",
        ),
    ),
    (
        FailureKind.AGE_GATE,
        _patterns(
            r"confirm your age",
            r"age[- ]restricted",
            r"age[- ]gated",
            r"inappropriate for some users",
            r"age verification",
        ),
    ),
    (
        FailureKind.MEMBERS_ONLY,
        _patterns(
            r"members[- ]only",
            r"join this channel to get access",
            r"only available (?:to|for) (?:channel |premium )?(?:members|subscribers|premium)",
            r"for premium members only",
        ),
    ),
    (
        FailureKind.GEO_BLOCKED,
        _patterns(
            r"not available (?:from|in) your (?:location|country|region)",
            r"not made this video available in your country",
            r"blocked it in your country",
            r"geo[- ]?restrict",
        ),
    ),
    (
        FailureKind.PRIVATE,
        _patterns(r"private video", r"(?:video|post|account|content|vod) is (?:a )?private"),
    ),
    (
        FailureKind.REMOVED,
        _patterns(
            r"has been removed",
            r"no longer available",
            r"has been terminated",
            r"has been deleted",
            r"was deleted",
        ),
    ),
    (
        FailureKind.SIGN_IN,
        _patterns(
            r"only available for registered users",
            r"log(?:in|ged[- ]in)? required",
            r"login details are needed",
            r"(?:need|have) to (?:log|sign) in",
            r"requires? (?:a )?(?:login|sign[- ]in)",
            r"log ?in to (?:view|watch|access)",
            r"sign in to (?:view|watch|access)",
        ),
    ),
)

_UNAVAILABLE = _patterns(
    r"unable to extract",
    r"no video formats found",
    r"video unavailable",
    r"unable to download webpage: http error (403|404|410)\b",
    r"unable to download json metadata: http error (403|404|410)\b",
    r"empty media response",
    r"this video is not available",
    r"requested format is not available",
    r"drm protected",
)

_GUARD_REFUSAL = re.compile(re.escape(REFUSED_BY) + r" \[([^\[\]]*)\]")
_TAG = re.compile(r"^\s*\[[^\]]+\]\s*")
_SITE_TAG = re.compile(r"^ERROR:\s*\[([^\]:]+)[^\]]*\]")
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
    return text[:_MAX_REASON] or Phrase(texts.UNKNOWN_ERROR)


def classify_ytdlp(failure: ToolFailure) -> Verdict:
    if failure.timed_out_after is not None:
        return Verdict(FailureKind.TRANSIENT, reasons.timed_out(failure.timed_out_after))
    lines = error_lines(failure.stderr_tail)
    if failure.signal is not None and not lines:
        return Verdict(FailureKind.TRANSIENT, Phrase(texts.YTDLP_KILLED, signal=_signal_name(failure.signal)))
    if not lines:
        return Verdict(FailureKind.TRANSIENT, Phrase(texts.YTDLP_EXITED, code=str(failure.exit_code)))
    reason = user_reason(lines[-1])
    if failure.signal is not None:
        return Verdict(FailureKind.TRANSIENT, reason)
    refusal = next((m for line in lines if (m := _GUARD_REFUSAL.search(line))), None)
    if refusal is not None:
        return Verdict(FailureKind.REFUSED, reasons.guard_refusal(refusal.group(1)[:_MAX_REASON]))
    kind, line = _kind_of(lines)
    site = _site_of(line if line is not None else lines[-1])
    # The site's own wording is for the operator (yt-dlp's flags, a wiki link): the user reads why.
    return Verdict(kind, reasons.site_verdict(kind.value) if kind.site_verdict else reason, site)


def _kind_of(lines: list[str]) -> tuple[FailureKind, str | None]:
    """The class and the line that decided it (None: nothing did, the failure is transient)."""
    for kind, patterns in ((FailureKind.NOT_A_VIDEO, _NOT_A_VIDEO), *_SITE_VERDICTS):
        if (line := _first_match(lines, patterns)) is not None:
            return kind, line
    if (line := _first_match(lines, _UNAVAILABLE)) is not None:
        return FailureKind.UNAVAILABLE, line
    return FailureKind.TRANSIENT, None


def _first_match(lines: list[str], patterns: tuple[re.Pattern[str], ...]) -> str | None:
    return next((line for line in lines if any(p.search(line) for p in patterns)), None)


def _site_of(line: str) -> str | None:
    tag = _SITE_TAG.match(line)
    return (tag.group(1).strip().lower() or None) if tag is not None else None


def _signal_name(number: int) -> str:
    try:
        return signals.Signals(number).name
    except ValueError:
        return str(number)
