"""What the operator hears of sites refusing the server: one hint per verdict and site a day, one
"the cookies stopped working" a day, and every refusal counted."""

from __future__ import annotations

import logging

import pytest

from core.jobs.hooks import DeadJob
from core.work.delivery.failures import tool_failure
from core.work.site_refusals import HINT_INTERVAL_SECONDS, SiteRefusals
from ports.jobs import Job
from ports.media import ToolFailure
from tests.support.clock import VirtualClock

BOT_CHECK = (
    "ERROR: [youtube] tpUr8xVxj-w: Sign in to confirm you’re not a bot. Use --cookies for the authentication."
)
AGE_GATE = "ERROR: [youtube] aBcDeFgHiJk: Sign in to confirm your age. This video may be inappropriate."
GEO = "ERROR: [dailymotion] x8abcde: This video is not available from your location due to geo restriction"
PRIVATE = "ERROR: [vimeo] 123456789: This video is private and requires a password"
NOT_FOUND = "ERROR: [generic] Unable to download webpage: HTTP Error 404: Not Found"


class Counted:
    def __init__(self) -> None:
        self.refusals: list[tuple[str, str]] = []

    def site_refused(self, verdict: str, site: str) -> None:
        self.refusals.append((verdict, site))


def dead(line: str, job_id: int = 1) -> DeadJob:
    failure = tool_failure(ToolFailure(f"[x] Extracting URL\n{line}\n", exit_code=1))
    job = Job(job_id, "download_video", {"chat_id": 5, "url": f"https://v.example/{job_id}"}, 1, 3, 0.0, 0.0)
    return DeadJob(job, failure.reason, failure)


def said(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "vidrelay.sites"]


@pytest.fixture
def events() -> Counted:
    return Counted()


async def test_each_verdict_and_site_is_hinted_once_and_every_refusal_counted(
    clock: VirtualClock, events: Counted, caplog: pytest.LogCaptureFixture
) -> None:
    refusals = SiteRefusals(clock, events, cookies_configured=False)
    caplog.set_level(logging.INFO)

    for n, line in enumerate([BOT_CHECK, BOT_CHECK, GEO, PRIVATE, GEO, AGE_GATE]):
        await refusals.on_dead(dead(line, n))

    assert events.refusals == [
        ("bot_check", "youtube"),
        ("bot_check", "youtube"),
        ("geo_blocked", "dailymotion"),
        ("private", "vimeo"),
        ("geo_blocked", "dailymotion"),
        ("age_gate", "youtube"),
    ]
    lines = said(caplog)
    assert [(r.verdict, r.site, r.levelname) for r in lines] == [  # type: ignore[attr-defined]
        ("bot_check", "youtube", "ERROR"),
        ("geo_blocked", "dailymotion", "WARNING"),
        ("private", "vimeo", "INFO"),
        ("age_gate", "youtube", "WARNING"),
    ]
    assert "VIDRELAY_YTDLP_COOKIES_FILE" in lines[0].getMessage()
    assert "proxy" in lines[1].getMessage()
    assert lines[0].ytdlp_said == BOT_CHECK  # type: ignore[attr-defined]
    assert (lines[0].job_id, lines[0].chat_id, lines[0].url) == (0, 5, "https://v.example/0")  # type: ignore[attr-defined]


async def test_a_hint_comes_again_a_day_later(
    clock: VirtualClock, events: Counted, caplog: pytest.LogCaptureFixture
) -> None:
    refusals = SiteRefusals(clock, events, cookies_configured=False)
    await refusals.on_dead(dead(BOT_CHECK))
    await clock.advance(HINT_INTERVAL_SECONDS - 1)
    await refusals.on_dead(dead(BOT_CHECK))
    assert len(said(caplog)) == 1
    await clock.advance(1)
    await refusals.on_dead(dead(BOT_CHECK))
    assert len(said(caplog)) == 2


async def test_cookies_that_stop_working_are_reported_once_whatever_the_site_or_verdict(
    clock: VirtualClock, events: Counted, caplog: pytest.LogCaptureFixture
) -> None:
    refusals = SiteRefusals(clock, events, cookies_configured=True)
    caplog.set_level(logging.INFO)
    sign_in = "ERROR: [facebook] 1234567890: You need to log in to access this content"

    for n, line in enumerate([BOT_CHECK, AGE_GATE, BOT_CHECK, sign_in, GEO]):
        await refusals.on_dead(dead(line, n))

    lines = said(caplog)
    assert [(r.levelname, r.verdict) for r in lines] == [("ERROR", "bot_check"), ("WARNING", "geo_blocked")]  # type: ignore[attr-defined]
    assert "the cookies file (VIDRELAY_YTDLP_COOKIES_FILE) did not get past youtube's bot check" in (
        lines[0].getMessage()
    )
    assert len(events.refusals) == 5


async def test_other_failures_are_not_the_sites_verdict(
    clock: VirtualClock, events: Counted, caplog: pytest.LogCaptureFixture
) -> None:
    refusals = SiteRefusals(clock, events, cookies_configured=False)
    job = Job(1, "download_video", {}, 1, 3, 0.0, 0.0)
    await refusals.on_dead(dead(NOT_FOUND))
    await refusals.on_dead(DeadJob(job, "the process died"))
    assert events.refusals == []
    assert said(caplog) == []
