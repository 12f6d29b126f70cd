"""What the operator hears when a site refuses the server a video (a bot check, a sign-in wall,
an age gate, a geo block, a private, removed or members-only video).

The user was told in one message and the job failed at once (a site verdict is permanent); the
operator gets one log line per verdict and site saying what could help (cookies, an address
elsewhere) — at most once per HINT_INTERVAL_SECONDS, not once per link, or a popular blocked
site would flood the log. With a cookies file configured, a verdict that an account should have
got past means the cookies stopped working (expired, signed out): that is said once per interval
too, whichever site noticed first. Every refusal is counted (`RefusalEvents`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from core.jobs.fields import log_fields
from core.jobs.hooks import DeadJob
from core.ytdlp_errors import SITE_VERDICTS, FailureKind, classify_ytdlp, error_lines
from ports.clock import Clock
from ports.media import ToolFailure
from ports.telemetry import RefusalEvents

log = logging.getLogger("vidrelay.sites")

HINT_INTERVAL_SECONDS = 24 * 3600.0
COOKIES = "VIDRELAY_YTDLP_COOKIES_FILE"
UNKNOWN_SITE = "unknown"

_HINTS = {
    FailureKind.BOT_CHECK: (
        f"the site takes this server for a bot: give yt-dlp a signed-in account's cookies ({COOKIES}),"
        " or send its traffic from another address (a residential proxy)"
    ),
    FailureKind.SIGN_IN: f"only signed-in accounts may see it: {COOKIES} with the cookies of one that may",
    FailureKind.AGE_GATE: f"age-restricted: {COOKIES} with the cookies of a signed-in adult account",
    FailureKind.MEMBERS_ONLY: f"members only: {COOKIES} with the cookies of a member's account",
    FailureKind.GEO_BLOCKED: (
        "blocked in this server's country: only an address in an allowed country (a proxy there) gets it"
    ),
    FailureKind.PRIVATE: "private: only the cookies of an account the owner shared it with would get it",
    FailureKind.REMOVED: "removed by the site: nothing to do",
}
_AN_ACCOUNT_GETS_PAST = frozenset(
    {FailureKind.BOT_CHECK, FailureKind.SIGN_IN, FailureKind.AGE_GATE, FailureKind.MEMBERS_ONLY}
)
_LEVELS = {
    FailureKind.BOT_CHECK: logging.ERROR,  # nothing of that site may come through: act
    FailureKind.PRIVATE: logging.INFO,
    FailureKind.REMOVED: logging.INFO,
}
_CODES = frozenset(kind.value for kind in SITE_VERDICTS)


class SiteRefusals:
    def __init__(self, clock: Clock, events: RefusalEvents, *, cookies_configured: bool) -> None:
        self._clock = clock
        self._events = events
        self._cookies = cookies_configured
        self._last_said: dict[tuple[str, ...], float] = {}

    async def on_dead(self, dead: DeadJob) -> None:
        """A job's hook: hear its failure if a site's verdict ended it."""
        failure = dead.failure
        if failure is None or failure.detail is None or failure.code not in _CODES:
            return
        # The detail is yt-dlp's stderr: the same classifier finds the same verdict, and its site.
        verdict = classify_ytdlp(ToolFailure(failure.detail, exit_code=1))
        if verdict.kind.site_verdict:
            fields = {**log_fields(dead.job), "url": dead.job.payload.get("url")}
            self.heard(verdict.kind, verdict.site or UNKNOWN_SITE, _last_error(failure.detail), fields)

    def heard(self, verdict: FailureKind, site: str, said: str, job: Mapping[str, object]) -> None:
        """Count the refusal; tell the operator when due. `said`: yt-dlp's line, `job`: the job's
        log fields."""
        self._events.site_refused(verdict.value, site)
        fields = {**job, "verdict": verdict.value, "site": site, "ytdlp_said": said}
        if self._cookies and verdict in _AN_ACCOUNT_GETS_PAST:
            if self._due(("cookies",)):
                log.error(
                    "the cookies file (%s) did not get past %s's %s: it may have expired or been"
                    " signed out; export fresh cookies from a signed-in browser",
                    COOKIES,
                    site,
                    verdict.value.replace("_", " "),
                    extra=fields,
                )
            return
        if self._due((verdict.value, site)):
            level = _LEVELS.get(verdict, logging.WARNING)
            log.log(level, "%s refused the server a video: %s", site, _HINTS[verdict], extra=fields)

    def _due(self, key: tuple[str, ...]) -> bool:
        now = self._clock.now()
        last = self._last_said.get(key)
        if last is not None and now - last < HINT_INTERVAL_SECONDS:
            return False
        self._last_said[key] = now
        return True


def _last_error(stderr: str) -> str:
    lines = error_lines(stderr)
    return lines[-1][:300] if lines else ""
