"""A user reads the bot in their own language: every message and every edit of a link's way,
whether it ends in the video or in 💥, as a user whose Telegram app speaks Spanish, Russian, or a
language the bot has no catalog for (English then); and /settings can choose another."""

from __future__ import annotations

import re
import string
from functools import cache

import pytest

from core import texts
from testkit.telegram import Chat, StoredMessage
from testkit.video_site import Redirect, VideoServer
from tests.e2e.conftest import CLIPS_DIR, WAIT_SECONDS, Stack, new_user
from tests.e2e.test_bot_flows import clip_route
from tests.support.languages import languages

pytestmark = [pytest.mark.asyncio(loop_scope="package"), pytest.mark.slow]
TAG = re.compile(r"</?[a-z]+>")
ENGLISH_WORD = re.compile(r"[A-Za-z]{3,}")


def catalog() -> list[str]:
    entries: list[str] = []
    for name, value in vars(texts).items():
        if name.isupper() and isinstance(value, str):
            entries.append(value)
        elif name.isupper() and isinstance(value, dict):
            entries += value.values()
    return entries


@cache
def english_only(code: str) -> list[str]:
    """The English words of the catalog that its `code` translation does not have: finding one
    in a message means a text reached that chat untranslated."""
    language = languages().language(code)
    found = set()
    for entry in catalog():
        translation = language.translate(entry)
        for literal, _, _, _ in string.Formatter().parse(entry):
            words = literal.strip()
            if ENGLISH_WORD.search(TAG.sub("", words)) and words not in translation:
                found.add(words)
    return sorted(found)


def leaks(message: StoredMessage, code: str) -> list[tuple[str, str]]:
    """(the English words, the text they were in), over the message's every version."""
    return [(w, s) for s in message.sources if s for w in english_only(code) if w in s]


def keyboards(message: StoredMessage) -> list[str]:
    return [
        button["text"]
        for version in message.history
        if version.reply_markup
        for row in version.reply_markup["inline_keyboard"]
        for button in row
    ]


async def test_the_leak_check_sees_english_in_a_spanish_chat() -> None:
    assert "✅ <b>Sent</b>" in english_only("es")
    assert "<b>Enviado</b>" not in " ".join(english_only("es"))
    assert "⚠️ <b>Download failed</b>, retrying (attempt" in english_only("ru")


async def test_a_spanish_user_reads_every_message_and_edit_of_a_success_in_spanish(shared: Stack) -> None:
    user = new_user("es-419")
    url = clip_route(shared, "/e2e/idioma/es.mp4")
    message_id = shared.api.send_text(Chat.private(user), user, url)
    await shared.video_reply(user.id, message_id)
    log = await shared.log_until(user.id, message_id, lambda t: "✅ Enviado" in t)
    assert log.sources[0] == "🧐 <b>Analizando</b> la URL..."
    final = log.sources[-1] or ""
    assert "🎬 <b>Información del vídeo:</b>\n" in final
    assert final.endswith("✅ <b>Enviado</b>") or "✅ <b>Enviado</b> (" in final
    assert leaks(log, "es") == []
    assert set(keyboards(log)) <= {"🚫 Cancelar"}


async def test_a_spanish_user_reads_the_retries_and_the_failure_in_spanish(shared: Stack) -> None:
    user = new_user("es")
    message_id = shared.api.send_text(Chat.private(user), user, shared.site.url("/status/503"))
    log = await shared.log_until(user.id, message_id, lambda t: "💥" in t)
    final = log.sources[-1] or ""
    assert "⚠️ <b>La descarga falló</b>, lo intento de nuevo (intento 2 de 3)..." in final
    assert "⚠️ <b>La descarga falló</b>, lo intento de nuevo (intento 3 de 3)..." in final
    assert "💥 <b>La descarga falló</b>: " in final
    assert "HTTP Error 503" in final  # yt-dlp's own words, as it said them
    assert leaks(log, "es") == []


async def test_a_russian_user_reads_a_success_in_russian(shared: Stack) -> None:
    user = new_user("ru-RU")
    url = clip_route(shared, "/e2e/idioma/ru.mp4")
    message_id = shared.api.send_text(Chat.private(user), user, url)
    await shared.video_reply(user.id, message_id)
    log = await shared.log_until(user.id, message_id, lambda t: "✅ Отправлено" in t)
    assert log.sources[0] == "🧐 <b>Изучаю</b> ссылку..."
    assert "🎬 <b>О видео:</b>\n" in (log.sources[-1] or "")
    assert leaks(log, "ru") == []
    assert set(keyboards(log)) <= {"🚫 Отменить"}


async def test_a_russian_user_reads_the_bots_own_reason_for_a_failure_in_russian(shared: Stack) -> None:
    """The guard's refusal comes back through yt-dlp's stderr, in English: said in Russian."""
    user = new_user("ru")
    async with VideoServer(CLIPS_DIR) as elsewhere:
        shared.site.set_route("/e2e/idioma/guard", Redirect(elsewhere.url("/clips/short.mp4")))
        message_id = shared.api.send_text(Chat.private(user), user, shared.site.url("/e2e/idioma/guard"))
        log = await shared.log_until(user.id, message_id, lambda t: "💥" in t)
    final = log.sources[-1] or ""
    assert "💥 <b>Скачать не удалось</b>: отказано: ссылка ведёт на частный адрес (127.0.0.1)" in final
    assert leaks(log, "ru") == []


async def test_a_language_the_bot_has_no_catalog_for_reads_english(shared: Stack) -> None:
    user = new_user("pt-br")
    url = clip_route(shared, "/e2e/idioma/pt.mp4")
    message_id = shared.api.send_text(Chat.private(user), user, url)
    await shared.video_reply(user.id, message_id)
    log = await shared.log_until(user.id, message_id, lambda t: "✅ Sent" in t)
    assert log.sources[0] == "🧐 <b>Scraping</b> URL..."
    assert "🎬 <b>Video info:</b>\n" in (log.sources[-1] or "")


async def test_a_language_chosen_in_settings_is_spoken_instead_of_the_apps(shared: Stack) -> None:
    user = new_user("es")
    chat = Chat.private(user)
    shared.api.send_text(chat, user, "/settings")
    panel = await shared.api.wait_for(
        lambda: next((m for m in shared.api.messages(user.id) if m.reply_markup), None), timeout=WAIT_SECONDS
    )
    assert "⚙️ <b>Ajustes de este chat</b>" in (panel.sources[0] or "")
    russian = next(b for b in keyboards(panel) if b == "Русский")
    data = next(
        b["callback_data"]
        for row in (panel.reply_markup or {})["inline_keyboard"]
        for b in row
        if b["text"] == russian
    )
    pressed = shared.api.press_button(chat, user, panel.message_id, data)
    answer = await shared.api.wait_for(lambda: shared.api.callback_answer(pressed), timeout=WAIT_SECONDS)
    assert answer.text == "Язык: Русский"
    url = clip_route(shared, "/e2e/idioma/elegido.mp4")
    message_id = shared.api.send_text(chat, user, url)
    await shared.video_reply(user.id, message_id)
    log = await shared.log_until(user.id, message_id, lambda t: "✅ Отправлено" in t)
    assert leaks(log, "ru") == []
