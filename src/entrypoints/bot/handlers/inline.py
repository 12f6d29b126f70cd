"""Inline mode: `@bot <url>` in any chat. Silent when no cache chat is configured (inline=None)."""

from __future__ import annotations

from aiogram import Router
from aiogram.types import (
    ChosenInlineResult,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQuery,
    InlineQueryResultArticle,
    InlineQueryResultCachedAudio,
    InlineQueryResultCachedVideo,
    InlineQueryResultUnion,
    InputTextMessageContent,
)

from core import texts
from core.incoming.inline import InlineRequests, url_in
from core.incoming.known_videos import CachedVideo
from core.requests.inline import AUDIO_VARIANT, VARIANTS
from core.texts.captions import variant_caption
from core.texts.words import Words

CACHED_SECONDS = 60
PLACEHOLDER_SECONDS = 5
"""Short: a placeholder stands for a download that may finish any moment and become cached."""


def setup() -> Router:
    router = Router(name="inline")
    router.inline_query.register(on_inline_query)
    router.chosen_inline_result.register(on_chosen_inline_result)
    return router


async def on_inline_query(inline_query: InlineQuery, inline: InlineRequests | None) -> None:
    if inline is None:
        return
    url = url_in(inline_query.query)
    if url is None:
        await inline_query.answer([], cache_time=PLACEHOLDER_SECONDS, is_personal=True)
        return
    user_id = inline_query.from_user.id
    words = inline.words(inline_query.from_user.language_code)
    cached = await inline.cached(url)
    ids = [await inline.result_id(user_id, url, v, cached=cached is not None) for v in VARIANTS]
    results = (
        _cached_results(url, cached, ids, words) if cached is not None else _placeholders(url, ids, words)
    )
    sound = await inline.cached_audio(url)
    sound_id = await inline.result_id(user_id, url, AUDIO_VARIANT, cached=sound is not None)
    results.append(
        _cached_sound(url, sound, sound_id, words)
        if sound is not None
        else _sound_placeholder(url, sound_id, words)
    )
    all_cached = cached is not None and sound is not None
    cache_time = CACHED_SECONDS if all_cached else PLACEHOLDER_SECONDS
    await inline_query.answer(results, cache_time=cache_time, is_personal=True)


async def on_chosen_inline_result(
    chosen_inline_result: ChosenInlineResult, inline: InlineRequests | None
) -> None:
    result = chosen_inline_result
    if inline is not None:
        await inline.choose(
            result.query,
            result.inline_message_id,
            result.from_user.id,
            result.result_id,
            app_language=result.from_user.language_code,
        )


def _cached_results(
    url: str, cached: CachedVideo, ids: list[str], words: Words
) -> list[InlineQueryResultUnion]:
    return [
        InlineQueryResultCachedVideo(
            id=result_id,
            video_file_id=cached.file_id,
            title=words.variant_title(cached.info.title, variant),
            caption=variant_caption(cached.info, variant),
            parse_mode=None,
            reply_markup=_source_button(url, words) if variant != "no_source" else None,
        )
        for variant, result_id in zip(VARIANTS, ids, strict=True)
    ]


def _placeholders(url: str, ids: list[str], words: Words) -> list[InlineQueryResultUnion]:
    return [
        InlineQueryResultArticle(
            id=result_id,
            title=words.variant_title(words.say(texts.INLINE_VIDEO_TITLE), variant),
            description=url,
            input_message_content=InputTextMessageContent(message_text=words.inline_fetching(url)),
            # A keyboard is what makes Telegram report the inline_message_id we will edit.
            reply_markup=_source_button(url, words),
        )
        for variant, result_id in zip(VARIANTS, ids, strict=True)
    ]


def _cached_sound(url: str, sound: CachedVideo, result_id: str, words: Words) -> InlineQueryResultUnion:
    """Telegram shows the audio's own title and performer, from the file."""
    return InlineQueryResultCachedAudio(
        id=result_id, audio_file_id=sound.file_id, reply_markup=_source_button(url, words)
    )


def _sound_placeholder(url: str, result_id: str, words: Words) -> InlineQueryResultUnion:
    return InlineQueryResultArticle(
        id=result_id,
        title=words.say(texts.INLINE_AUDIO_TITLE),
        description=url,
        input_message_content=InputTextMessageContent(message_text=words.inline_fetching(url, sound=True)),
        reply_markup=_source_button(url, words),
    )


def _source_button(url: str, words: Words) -> InlineKeyboardMarkup:
    button = InlineKeyboardButton(text=words.say(texts.SOURCE_BUTTON), url=url)
    return InlineKeyboardMarkup(inline_keyboard=[[button]])
