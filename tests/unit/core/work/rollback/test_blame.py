"""What a scrape says about the release that ran it: a success for each extractor of its entries, a
failure against the extractor only when the extractor itself may have broken."""

from __future__ import annotations

import pytest

from core.work.rollback.blame import blamed, extractor_key, succeeded
from ports.media import ToolFailure
from tests.unit.core.work.rollback.conftest import BROKEN, broken, entry


def test_a_success_speaks_for_each_extractor_of_its_entries_however_named() -> None:
    entries = [entry("u1", "youtube"), entry("u2", "youtube:tab"), entry("u3", "Generic")]

    assert succeeded(entries) == ["generic", "youtube"]
    assert succeeded([entry("u4", "html5")]) == ["generic"]  # the <video> tags of a generic page
    assert extractor_key("twitter:broadcast") == "twitter"


@pytest.mark.parametrize(
    ("line", "extractor"),
    [
        (BROKEN, "generic"),  # the extractor's pattern no longer matches the page
        ("ERROR: [youtube:tab] UCx: 'NoneType' object has no attribute 'group'", "youtube"),  # a crash
        ("ERROR: [vimeo] 123: No video formats found!", "vimeo"),
    ],
)
def test_an_extractor_that_may_have_broken_is_blamed(line: str, extractor: str) -> None:
    assert blamed(broken(line)) == extractor


@pytest.mark.parametrize(
    "line",
    [
        "ERROR: [youtube] tpUr8xVxj-w: Sign in to confirm you’re not a bot. Use --cookies",  # a verdict
        "ERROR: [vimeo] 123456789: This video is private and requires a password",  # a verdict
        "ERROR: [generic] Unable to download webpage: HTTP Error 404: Not Found",  # the site answered
        "ERROR: [generic] Unable to download webpage: HTTP Error 503: Service Unavailable",
        "ERROR: [generic] Unable to download webpage: <urlopen error [Errno 111] Connection refused>",
        "ERROR: [youtube] abc: Unable to download API page: The read operation timed out",
        "ERROR: [generic] Unable to download webpage: [SSL: CERTIFICATE_VERIFY_FAILED] verify failed",
        "ERROR: Unsupported URL: https://example.com/page",  # no video there
        "ERROR: 'NoneType' object has no attribute 'group'",  # no extractor named
    ],
)
def test_a_failure_that_says_nothing_of_the_release_is_not_blamed(line: str) -> None:
    assert blamed(broken(line)) is None


@pytest.mark.parametrize(
    "stopped",
    [
        ToolFailure(BROKEN, exit_code=None, timed_out_after=60.0),
        ToolFailure(BROKEN, exit_code=None, signal=9),
        ToolFailure(BROKEN, exit_code=None, aborted=True),
        ToolFailure(BROKEN, exit_code=1, too_large_bytes=10**10),
    ],
)
def test_a_run_stopped_from_outside_is_not_blamed(stopped: ToolFailure) -> None:
    assert blamed(stopped) is None
