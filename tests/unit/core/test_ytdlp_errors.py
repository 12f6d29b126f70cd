"""yt-dlp failures → not a video / a site verdict / unavailable / transient, on real ERROR lines.

The lines live in fixtures/ytdlp_errors.json: some written in yt-dlp's exact wording from its
source and the original bot's patterns, the others printed by the real yt-dlp against the local
video server (tests/integration/test_ytdlp_errors_live.py replays those).
"""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.texts.reasons import site_verdict
from core.ytdlp_errors import FailureKind, Verdict, classify_ytdlp, error_lines, user_reason
from ports.media import ToolFailure

FIXTURE = Path(__file__).parent / "fixtures" / "ytdlp_errors.json"
CASES: list[dict[str, Any]] = json.loads(FIXTURE.read_text(encoding="utf-8"))["lines"]


def _line(case: dict[str, Any]) -> str:
    return str(case["line"]).replace("{port}", "41234").replace("{closed_port}", "41235")


def _failure(stderr: str, **kw: Any) -> ToolFailure:
    return ToolFailure(stderr_tail=stderr, exit_code=kw.pop("exit_code", 1), **kw)


def _id(case: dict[str, Any]) -> str:
    return f"{case['source']}-{case['kind']}-{_line(case)[7:60]}"


def test_the_fixture_holds_enough_real_lines_of_every_class() -> None:
    assert len(CASES) >= 25
    assert {c["kind"] for c in CASES} == {k.value for k in FailureKind}
    assert sum(c["source"] == "captured" for c in CASES) >= 7


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_each_real_error_line_lands_in_its_class(case: dict[str, Any]) -> None:
    stderr = f"[generic] Extracting URL: https://example.com/x\n{_line(case)}\n"
    verdict = classify_ytdlp(_failure(stderr))
    assert verdict.kind is FailureKind(case["kind"]), verdict.reason


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_the_user_facing_reason_is_clean(case: dict[str, Any]) -> None:
    reason = classify_ytdlp(_failure(_line(case) + "\n")).reason
    assert reason
    assert not reason.startswith(("ERROR", "[")), reason
    assert "caused by" not in reason.lower()
    assert "please report this issue" not in reason.lower()
    assert "\r" not in reason
    assert len(reason) <= 300


def test_reason_examples() -> None:
    assert (
        user_reason(
            "ERROR: [generic] Unable to download webpage: HTTP Error 404: Not Found "
            "(caused by <HTTPError 404: Not Found>)"
        )
        == "Unable to download webpage: HTTP Error 404: Not Found"
    )
    got_error = "ERROR: \r[download] Got error: HTTP Error 503: Service Unavailable\n"
    assert classify_ytdlp(_failure(got_error)).reason == "Got error: HTTP Error 503: Service Unavailable"
    assert (
        user_reason(
            "ERROR: [instagram] X: Unable to extract shared data; please report this issue on  "
            "https://github.com/yt-dlp/yt-dlp/issues?q= , filling out the appropriate issue template."
        )
        == "X: Unable to extract shared data"
    )


def test_a_carriage_return_inside_an_error_line_keeps_the_line_whole() -> None:
    assert error_lines("[download]  10.0%\rERROR: \r[download] Got error: timed out\nWARNING: x\n") == [
        "ERROR: [download] Got error: timed out"
    ]


def test_warning_lines_never_count() -> None:
    stderr = (
        "WARNING: [youtube] Private video. Sign in if you've been granted access\n"
        "WARNING: Unsupported URL: https://example.com\n"
        "ERROR: unable to download video data: HTTP Error 503: Service Unavailable\n"
    )
    verdict = classify_ytdlp(_failure(stderr))
    assert verdict.kind is FailureKind.TRANSIENT
    assert verdict.reason == "unable to download video data: HTTP Error 503: Service Unavailable"


def test_warnings_alone_are_transient() -> None:
    verdict = classify_ytdlp(_failure("WARNING: [generic] Unsupported URL: https://x\n", exit_code=1))
    assert verdict == Verdict(FailureKind.TRANSIENT, "yt-dlp exited with code 1")


def test_the_last_error_line_is_the_reason_and_any_permanent_line_decides() -> None:
    stderr = "ERROR: [reddit] abc: No media found\nERROR: unable to download video data: HTTP Error 503\n"
    verdict = classify_ytdlp(_failure(stderr))
    assert verdict.kind is FailureKind.NOT_A_VIDEO
    assert verdict.reason == "unable to download video data: HTTP Error 503"


def test_a_timeout_is_transient_whatever_the_output_says() -> None:
    failure = _failure(
        "ERROR: Unsupported URL: https://example.com\n", exit_code=None, signal=15, timed_out_after=300.0
    )
    assert classify_ytdlp(failure) == Verdict(FailureKind.TRANSIENT, "Timed out after 300 seconds")


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM, signal.SIGSEGV])
def test_a_signal_is_transient_even_after_a_permanent_looking_line(sig: signal.Signals) -> None:
    assert classify_ytdlp(_failure("", exit_code=None, signal=int(sig))) == Verdict(
        FailureKind.TRANSIENT, f"yt-dlp was killed with signal {sig.name}"
    )
    verdict = classify_ytdlp(_failure("ERROR: [youtube] x: Private video\n", exit_code=None, signal=int(sig)))
    assert verdict.kind is FailureKind.TRANSIENT


def test_an_unknown_signal_number_is_named_by_its_number() -> None:
    verdict = classify_ytdlp(_failure("", exit_code=None, signal=200))
    assert verdict.reason == "yt-dlp was killed with signal 200"


def test_the_downloaders_own_refusal_of_other_schemes_is_not_a_video() -> None:
    refusal = "ERROR: Unsupported URL scheme 'file': only http and https links are fetched\n"
    assert classify_ytdlp(_failure(refusal, exit_code=None)).kind is FailureKind.NOT_A_VIDEO


@given(
    stderr=st.text(),
    exit_code=st.none() | st.integers(),
    sig=st.none() | st.integers(min_value=-(2**31), max_value=2**31),
    timed_out=st.none() | st.floats(allow_nan=True, allow_infinity=True),
    aborted=st.booleans(),
)
def test_classify_never_raises_on_arbitrary_output(
    stderr: str, exit_code: int | None, sig: int | None, timed_out: float | None, aborted: bool
) -> None:
    failure = ToolFailure(stderr, exit_code, sig, timed_out, aborted)
    verdict = classify_ytdlp(failure)
    assert isinstance(verdict.kind, FailureKind)
    assert verdict.reason


@given(st.lists(st.sampled_from(["ERROR: ", "WARNING: ", "[x] ", "(caused by y)", "\r", "\n", "é", " "])))
def test_classify_never_raises_on_error_shaped_noise(parts: list[str]) -> None:
    verdict = classify_ytdlp(_failure("".join(parts)))
    assert verdict.reason


REFUSED_CASES = [c for c in CASES if c["kind"] == "refused"]


@pytest.mark.parametrize("case", REFUSED_CASES, ids=_id)
def test_a_guard_refusal_fails_for_good_and_says_where_the_link_led(case: dict[str, Any]) -> None:
    verdict = classify_ytdlp(_failure(_line(case) + "\n"))
    assert verdict == Verdict(FailureKind.REFUSED, "refused: the link leads to a private address (127.0.0.1)")
    assert verdict.kind.permanent


def test_the_refusal_the_downloader_adds_after_a_hidden_403_decides() -> None:
    stderr = (
        "ERROR: The downloaded file is empty\n"
        "ERROR: Refused by vidrelay [the link leads to a private address (10.0.0.5)]\n"
    )
    assert classify_ytdlp(_failure(stderr)) == Verdict(
        FailureKind.REFUSED, "refused: the link leads to a private address (10.0.0.5)"
    )


def test_a_killed_run_is_transient_even_when_something_was_refused() -> None:
    stderr = "ERROR: Refused by vidrelay [the link leads to a private address (10.0.0.5)]\n"
    assert classify_ytdlp(_failure(stderr, exit_code=None, signal=9)).kind is FailureKind.TRANSIENT


SITE_VERDICT_CASES = [c for c in CASES if FailureKind(c["kind"]).site_verdict]


@pytest.mark.parametrize("case", SITE_VERDICT_CASES, ids=_id)
def test_a_site_verdict_is_permanent_names_its_site_and_says_why_in_plain_words(case: dict[str, Any]) -> None:
    verdict = classify_ytdlp(_failure(_line(case) + "\n"))
    assert verdict.kind.permanent
    assert verdict.site == _line(case).removeprefix("ERROR: [").split("]")[0].split(":")[0]
    assert verdict.reason == site_verdict(case["kind"])
    assert "--cookies" not in verdict.reason


def test_every_site_verdict_has_its_own_words_for_the_user() -> None:
    words = [site_verdict(kind.value) for kind in FailureKind if kind.site_verdict]
    assert len(set(words)) == len(words) == 7
    assert {FailureKind(c["kind"]) for c in SITE_VERDICT_CASES} == {k for k in FailureKind if k.site_verdict}


def test_youtubes_sign_in_words_are_told_apart() -> None:
    kinds = {
        "Sign in to confirm you're not a bot": FailureKind.BOT_CHECK,
        "Sign in to confirm your age": FailureKind.AGE_GATE,
        "Private video. Sign in if you've been granted access to this video": FailureKind.PRIVATE,
        "Video unavailable. This video has been removed by the uploader": FailureKind.REMOVED,
        "Video unavailable. The uploader has not made this video available in your country": (
            FailureKind.GEO_BLOCKED
        ),
        "Video unavailable": FailureKind.UNAVAILABLE,
    }
    for words, kind in kinds.items():
        assert classify_ytdlp(_failure(f"ERROR: [youtube] abc: {words}\n")).kind is kind, words
