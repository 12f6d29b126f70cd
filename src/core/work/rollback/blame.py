"""What a scrape says about the yt-dlp release that ran it, as a pure function of its outcome.

A success speaks for each extractor of its entries. A failure speaks against the extractor that
yt-dlp named (its ERROR line's [tag]) only when the extractor itself may have broken: a transient
or "unavailable" failure ("Unable to extract …", a crash) — not the site's own verdict (a bot
check, a private video: the site said why), not a link that is no video, not the SSRF guard's
refusal, and not the site's trouble (an HTTP status it answered, a connection or a timeout on the
way to it), which no other release would have met differently. A run stopped from outside (a
timeout, a signal, a shutdown, a size cap) says nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.ytdlp_errors import FailureKind, classify_ytdlp, error_lines
from ports.media import ToolFailure, VideoInfo

BLAMED_KINDS = frozenset({FailureKind.TRANSIENT, FailureKind.UNAVAILABLE})
BLAMED_CODES = frozenset(kind.value for kind in BLAMED_KINDS)
"""The failure codes of a job (JobFailure.code) that may have been a broken release's."""

_SITES_TROUBLE = re.compile(
    r"http error \d{3}|urlopen error|timed? ?out|connection (?:refused|reset|aborted)|\berrno\b"
    r"|name resolution|network is unreachable|\bssl\b",
    re.IGNORECASE,
)


_PART_OF = {"html5": "generic"}
"""The generic extractor reads a page's <video> tags with a helper that names the entries it finds
(`html5`), while a failure on such a page is the generic extractor's (`[generic]`)."""


def extractor_key(name: str) -> str:
    """`youtube` for yt-dlp's `youtube:tab` or `YouTube`: one extractor, however it is named."""
    key = name.split(":", 1)[0].strip().lower()
    return _PART_OF.get(key, key)


def succeeded(entries: Sequence[VideoInfo]) -> list[str]:
    return sorted({extractor_key(e.extractor) for e in entries if extractor_key(e.extractor)})


def blamed(failure: ToolFailure) -> str | None:
    """The extractor this failure counts against, or None when it says nothing of the release."""
    stopped = failure.timed_out_after is not None or failure.signal is not None
    if stopped or failure.aborted or failure.too_large_bytes is not None:
        return None
    verdict = classify_ytdlp(failure)
    if verdict.kind not in BLAMED_KINDS or verdict.site is None:
        return None
    if any(_SITES_TROUBLE.search(line) for line in error_lines(failure.stderr_tail)):
        return None
    return extractor_key(verdict.site) or None
