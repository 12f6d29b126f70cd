"""aiogram handlers: map Telegram updates to small values and hand them to the core.

No business rules here. Every handler returns fast: a link becomes a durable job and the
handler is done; the workers do the rest.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from aiogram import F, Router
from aiogram.enums import ChatType
from aiogram.filters import Command, CommandObject, CommandStart
from aiogram.types import (
    CallbackQuery,
    ChosenInlineResult,
    ErrorEvent,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQuery,
    InlineQueryResultArticle,
    InlineQueryResultCachedVideo,
    InputTextMessageContent,
    Message,
    MessageEntity,
)

from core import texts
from core.pipeline.confirm import Decision
from core.pipeline.inline import VARIANTS, variant_caption
from core.pipeline.intake import IncomingMessage, IntakeReport
from core.pipeline.job_names import DOWNLOAD_INLINE
from core.pipeline.request import InlineRequest
from core.urls import Entity, extract_urls
from entrypoints.app import App

log = logging.getLogger("vidrelay.bot")

PRIVATE = ChatType.PRIVATE.value


def setup() -> Router:
    router = Router(name="vidrelay")
    router.message.register(on_start, CommandStart())
    router.message.register(on_help, Command("help"))
    router.message.register(on_status, Command("status"))
    router.message.register(on_verbose, Command("verbose"))
    router.message.register(on_migration, F.migrate_to_chat_id)
    router.message.register(on_message, F.text | F.caption)
    router.edited_message.register(on_edited_message, F.chat.type == PRIVATE, F.text | F.caption)
    router.callback_query.register(on_confirm, F.data.startswith("confirm:"))
    router.callback_query.register(on_cancel, F.data.startswith("cancel:"))
    router.inline_query.register(on_inline_query)
    router.chosen_inline_result.register(on_chosen_inline_result)
    router.errors.register(on_error)
    return router


def _entities(entities: Sequence[MessageEntity] | None) -> list[Entity]:
    return [Entity(str(e.type), e.offset, e.length) for e in entities or ()]


def incoming(message: Message, *, verbose: bool = False) -> IncomingMessage:
    text = message.text if message.text is not None else message.caption
    entities = message.entities if message.text is not None else message.caption_entities
    return IncomingMessage(
        chat_id=message.chat.id,
        chat_type=str(message.chat.type),
        message_id=message.message_id,
        user_id=message.from_user.id if message.from_user else message.chat.id,
        text=text,
        entities=_entities(entities),
        verbose=verbose,
    )


async def on_start(message: Message, app: App) -> None:
    if message.chat.type == PRIVATE:
        await message.answer(
            texts.HELP.format(bot=(await message.bot.me()).username if message.bot else "bot")
        )


async def on_help(message: Message, app: App) -> None:
    await on_start(message, app)


async def on_message(message: Message, app: App) -> None:
    report = await app.intake.accept(incoming(message))
    await _reply_to_report(message, report, app)


async def on_edited_message(edited_message: Message, app: App) -> None:
    """Private chats only: groups send edits for reactions. Only URLs new to the message run."""
    report = await app.intake.accept(incoming(edited_message))
    await _reply_to_report(edited_message, report, app)


async def on_verbose(message: Message, command: CommandObject, app: App) -> None:
    if message.chat.type != PRIVATE:
        return
    if not extract_urls(message.text, _entities(message.entities)):
        await message.reply(texts.verbose_usage())
        return
    await _reply_to_report(message, await app.intake.accept(incoming(message, verbose=True)), app)


async def _reply_to_report(message: Message, report: IntakeReport, app: App) -> None:
    """A full queue is said everywhere (the user must know the link was not taken); refused
    addresses are explained in private chats and met with silence in groups."""
    if report.queue_full:
        await message.reply(texts.queue_full(app.settings.max_queued_per_user))
    if message.chat.type != PRIVATE:
        return
    for url, why in report.refused:
        await message.reply(texts.refused_url(url, why))


async def on_status(message: Message, app: App) -> None:
    user = message.from_user
    if user is None or user.id not in app.settings.admin_user_ids:
        return
    counts = await app.adapters.store.counts()
    version = await app.adapters.downloader.version()
    lines: list[tuple[str, object]] = [
        ("Queue", counts.waiting),
        ("In flight", app.engine.in_flight),
        ("Failed", counts.failed),
        ("yt-dlp", version or "unknown"),
        ("Last update check", app.update_status.describe()),
    ]
    await message.reply(texts.status(lines))


async def on_migration(message: Message, app: App) -> None:
    log.info("group %s migrated to supergroup %s", message.chat.id, message.migrate_to_chat_id)


async def on_confirm(callback_query: CallbackQuery, app: App) -> None:
    pending_id = (callback_query.data or "").split(":", 1)[1]
    decision = await app.confirmations.confirm(pending_id)
    if decision is Decision.CONFIRMED:
        await callback_query.answer("👍 On it!")
        await _close_prompt(callback_query, "👍 Downloading it.")
    else:
        await callback_query.answer(texts.NO_LONGER_AVAILABLE, show_alert=True)


async def on_cancel(callback_query: CallbackQuery, app: App) -> None:
    pending_id = (callback_query.data or "").split(":", 1)[1]
    decision = await app.confirmations.cancel(pending_id, callback_query.from_user.id)
    if decision is Decision.CANCELLED:
        await callback_query.answer("👎 Cancelled.")
        await _close_prompt(callback_query, "👎 Cancelled.")
    elif decision is Decision.NOT_REQUESTER:
        await callback_query.answer("Only the person who sent the link can cancel.", show_alert=True)
    else:
        await callback_query.answer(texts.NO_LONGER_AVAILABLE, show_alert=True)


async def _close_prompt(callback_query: CallbackQuery, line: str) -> None:
    message = callback_query.message
    if isinstance(message, Message):
        await message.edit_text(f"{message.html_text}\n{line}", reply_markup=None)


async def on_inline_query(inline_query: InlineQuery, app: App) -> None:
    if app.inline is None:
        return
    urls = extract_urls(
        inline_query.query, [Entity("url", 0, len(inline_query.query.encode("utf-16-le")) // 2)]
    )
    if not urls:
        await inline_query.answer([], cache_time=5, is_personal=True)
        return
    url = urls[0]
    cached = await app.inline.cached(url)
    if cached is not None:
        results = [
            InlineQueryResultCachedVideo(
                id=f"{variant}",
                video_file_id=cached.file_id,
                title=_variant_title(cached.info.title, variant),
                caption=variant_caption(cached.info, variant),
                parse_mode=None,
                reply_markup=_source_button(url) if variant != "no_source" else None,
            )
            for variant in VARIANTS
        ]
        await inline_query.answer(list(results), cache_time=60, is_personal=True)
        return
    placeholder = [
        InlineQueryResultArticle(
            id=variant,
            title=_variant_title("Send this video", variant),
            description=url,
            input_message_content=InputTextMessageContent(message_text=f"⏳ Fetching {texts.escape(url)}…"),
            # A keyboard is what makes Telegram report the inline_message_id we will edit.
            reply_markup=_source_button(url),
        )
        for variant in VARIANTS
    ]
    await inline_query.answer(list(placeholder), cache_time=5, is_personal=True)


def _variant_title(title: str, variant: str) -> str:
    suffix = {"full": "", "no_caption": " (no caption)", "no_source": " (no source link)"}[variant]
    return f"{title}{suffix}"


def _source_button(url: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(inline_keyboard=[[InlineKeyboardButton(text="🔗 Source", url=url)]])


async def on_chosen_inline_result(chosen_inline_result: ChosenInlineResult, app: App) -> None:
    result = chosen_inline_result
    if app.inline is None or result.inline_message_id is None or result.result_id not in VARIANTS:
        return
    urls = extract_urls(result.query, [Entity("url", 0, len(result.query.encode("utf-16-le")) // 2)])
    if not urls:
        return
    request = InlineRequest(urls[0], result.inline_message_id, result.from_user.id, result.result_id)
    await app.engine.submit(DOWNLOAD_INLINE, request.to_payload(), owner_id=result.from_user.id)


async def on_error(event: ErrorEvent) -> None:
    """Contain it: log with the update id and keep polling."""
    log.error(
        "update handler failed: %s",
        event.exception,
        exc_info=event.exception,
        extra={"update_id": event.update.update_id},
    )
