"""A job's failures as the engine takes them: classified, with a reason a user may read."""

from __future__ import annotations

from core import texts
from core.jobs.outcome import JobFailure
from core.telegram_errors import ApiVerdict, classify_telegram
from core.texts import reasons
from core.texts.phrase import Phrase
from core.ytdlp_errors import FailureKind, classify_ytdlp
from ports.errors import ShutdownAbort
from ports.media import ToolFailure
from ports.messenger import MessengerError

TOO_LARGE = "too_large"
TELEGRAM_UNREACHABLE = "telegram_unreachable"
"""Telegram did not answer as the Bot API does (5xx, HTML, no connection, a timeout): an outage,
which the job waits out (core.work.delivery.outage), never a failure of the link."""


def bad_payload(error: ValueError) -> JobFailure:
    return JobFailure(Phrase(texts.BAD_PAYLOAD, error=str(error)), permanent=True)


def refused(why: str) -> JobFailure:
    return JobFailure(reasons.refused(why), permanent=True, code="refused")


def no_video() -> JobFailure:
    return JobFailure(Phrase(texts.NO_VIDEO), permanent=True, code=FailureKind.NOT_A_VIDEO.value)


def vanished() -> JobFailure:
    return JobFailure(Phrase(texts.VANISHED))


def too_large(size: int) -> JobFailure:
    return JobFailure(reasons.too_large(size), permanent=True, code=TOO_LARGE)


def tool_failure(failure: ToolFailure) -> JobFailure:
    """Raises ShutdownAbort when yt-dlp was stopped for shutdown: the job did not fail."""
    if failure.aborted:
        raise ShutdownAbort("yt-dlp stopped for shutdown")
    verdict = classify_ytdlp(failure)
    return JobFailure(
        verdict.reason,
        permanent=verdict.kind.permanent,
        detail=failure.stderr_tail[-4000:] or None,
        code=verdict.kind.value,
    )


def api_failure(error: MessengerError) -> JobFailure:
    verdict = classify_telegram(error)
    reason = Phrase(texts.TELEGRAM_REFUSED, description=error.description)
    if verdict is ApiVerdict.RETRY_AFTER:
        return JobFailure(reason, retry_after=error.retry_after or 1.0, code="flood")
    if verdict is ApiVerdict.TRANSIENT:
        return JobFailure(reason, code=TELEGRAM_UNREACHABLE)
    return JobFailure(reason, permanent=True, code="telegram")
