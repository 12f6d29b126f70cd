"""`@bot <url>` as the bot sees it: answer from what is known, or queue the variant the user picked."""

from __future__ import annotations

from core.pipeline.download import JobSubmitter
from core.pipeline.inline import DOWNLOAD_INLINE, VARIANTS, CachedVideo, InlineLookup
from core.pipeline.request import InlineRequest
from core.urls import Entity, extract_urls


def url_in(query: str) -> str | None:
    """Telegram sends an inline query without entities: the whole query is taken as the link."""
    whole = Entity("url", 0, len(query.encode("utf-16-le")) // 2)
    urls = extract_urls(query, [whole])
    return urls[0] if urls else None


class InlineRequests:
    def __init__(self, lookup: InlineLookup, jobs: JobSubmitter) -> None:
        self._lookup = lookup
        self._jobs = jobs

    async def cached(self, url: str) -> CachedVideo | None:
        return await self._lookup.cached(url)

    async def choose(self, query: str, inline_message_id: str | None, user_id: int, variant: str) -> bool:
        """False when there is nothing to swap in: no placeholder message, or not one of ours."""
        url = url_in(query)
        if url is None or inline_message_id is None or variant not in VARIANTS:
            return False
        request = InlineRequest(url, inline_message_id, user_id, variant)
        await self._jobs.submit(DOWNLOAD_INLINE, request.to_payload(), owner_id=user_id)
        return True
