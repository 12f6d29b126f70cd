"""`@bot <url>` as the bot sees it: answer from what is known, or queue the variant the user picked.

An inline query is answered from the caches alone (no scrape, no download): the video and the
sound Telegram already has for the link are results that already are the file; any other variant
is a placeholder, and choosing it queues `download_inline` to fill it. Every result id the bot
answers with is a signed offer (core.trust.inline_offers): a chosen result queues work only when
the bot offered that very result to that user for that link, recently.
"""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

from core.incoming.known_videos import CachedVideo, KnownVideos
from core.jobs.submitter import JobSubmitter
from core.requests.inline import OFFERED, InlineRequest
from core.requests.job_names import DOWNLOAD_INLINE
from core.texts.languages import ENGLISH, supported
from core.texts.words import Words
from core.trust.inline_offers import Offer, chosen_offer, offer_id
from core.trust.keys import InstallKeys
from core.urls import Entity, extract_urls
from ports.clock import Clock
from ports.language import Languages

log = logging.getLogger("vidrelay.inline")

PURPOSE = "inline_result"
CACHED_PREFIX = "cached_"
"""Labels of results that already are the video or the sound: choosing one leaves nothing to fetch."""


def url_in(query: str) -> str | None:
    """Telegram sends an inline query without entities: the whole query is taken as the link,
    when it looks like one (an http(s) URL naming a dotted host or an address, nothing
    unprintable) — otherwise the bot would offer to fetch "https://" + any words."""
    whole = Entity("url", 0, len(query.encode("utf-16-le", "surrogatepass")) // 2)
    urls = extract_urls(query, [whole])
    return urls[0] if urls and _looks_like_a_link(urls[0]) else None


def _looks_like_a_link(url: str) -> bool:
    if not url.isprintable():
        return False
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return False
    if parts.scheme.lower() not in ("http", "https") or not host:
        return False
    if ":" in host:  # an IPv6 literal
        return True
    labels = host.split(".")
    return len(labels) > 1 and all(label and all(c.isalnum() or c == "-" for c in label) for label in labels)


class InlineRequests:
    def __init__(
        self,
        *,
        known: KnownVideos,
        jobs: JobSubmitter,
        keys: InstallKeys,
        clock: Clock,
        languages: Languages,
    ) -> None:
        self._known = known
        self._jobs = jobs
        self._keys = keys
        self._clock = clock
        self._languages = languages

    def words(self, app_language: str | None) -> Words:
        """An inline query has no chat of the bot's: its user's Telegram app's language, else English."""
        return Words.of(self._languages, supported(app_language) or ENGLISH)

    async def cached(self, url: str) -> CachedVideo | None:
        """The video Telegram already has for `url`, or None: the user gets a placeholder."""
        return await self._known.known(url)

    async def cached_audio(self, url: str) -> CachedVideo | None:
        """The same for the video's sound (`file_id` is the audio's)."""
        return await self._known.known(url, sound=True)

    async def result_id(self, user_id: int, url: str, variant: str, *, cached: bool) -> str:
        """The id of the result offering `variant` of `url` to `user_id` now."""
        label = f"{CACHED_PREFIX}{variant}" if cached else variant
        return offer_id(await self._keys.key(PURPOSE), Offer(label, user_id, url), self._clock.now())

    async def choose(
        self,
        query: str,
        inline_message_id: str | None,
        user_id: int,
        result_id: str,
        app_language: str | None = None,
    ) -> bool:
        """False when there is nothing to swap in: no placeholder message, or not one of ours."""
        url = url_in(query)
        if url is None or inline_message_id is None:
            return False
        key = await self._keys.key(PURPOSE)
        offer = chosen_offer(key, result_id, user_id, url, self._clock.now())
        if offer is None:
            log.info("ignored a chosen inline result the bot did not offer", extra={"user_id": user_id})
            return False
        if offer.label not in OFFERED:
            return False  # a cached video or sound: it is already the message
        language = supported(app_language) or ENGLISH
        request = InlineRequest(url, inline_message_id, user_id, offer.label, language)
        await self._jobs.submit(DOWNLOAD_INLINE, request.to_payload(), owner_id=user_id, requester=user_id)
        return True
