"""The language a chat reads: chosen on /settings, else its user's app's (private chats), else
English; the panel speaks it, and a new choice takes effect at once."""

from __future__ import annotations

from core.chat_settings.service import Outcome
from ports.chat_settings import ChatSettings
from tests.support.chat_settings_rig import ADMIN, GROUP, Rig, in_group, in_private


async def test_a_private_chat_reads_its_users_app_language_until_it_chooses_one(rig: Rig) -> None:
    assert (await rig.service.words(ADMIN, "private", "es-419")).code == "es"
    assert (await rig.service.words(ADMIN, "private", "ru-RU")).code == "ru"
    assert (await rig.service.words(ADMIN, "private", "de")).code == "en"
    assert (await rig.service.words(ADMIN, "private", "pt-br")).code == "en"
    assert (await rig.service.words(ADMIN, "private", None)).code == "en"
    await rig.store.save_chat_settings(ADMIN, ChatSettings(language="ru"), 0.0)
    assert (await rig.service.words(ADMIN, "private", "es")).code == "ru"


async def test_a_group_reads_english_whatever_its_members_apps_say_until_it_chooses(rig: Rig) -> None:
    assert (await rig.service.words(GROUP, "supergroup", "es")).code == "en"
    await rig.store.save_chat_settings(GROUP, ChatSettings(language="es"), 0.0)
    assert (await rig.service.words(GROUP, "supergroup", "ru")).code == "es"


async def test_the_panel_speaks_the_app_language_and_names_the_automatic_choice(rig: Rig) -> None:
    await rig.open_panel(in_private(ADMIN), app_language="es")

    text = rig.messenger.chat(ADMIN)[-1].text or ""
    assert "⚙️ <b>Ajustes de este chat</b>" in text
    assert "Idioma: <b>el de tu app de Telegram (Español)</b>" in text
    assert "✅ 🌐 Automático" in [b.text for b in rig.panel_buttons(ADMIN)]


async def test_picking_a_language_saves_it_and_the_panel_and_answer_speak_it_at_once(rig: Rig) -> None:
    asker = in_private(ADMIN)
    panel_id = await rig.open_panel(asker, app_language="en")

    answer = await rig.tap(asker, panel_id, "Русский", app_language="en")

    assert (answer.outcome, answer.text) == (Outcome.CHANGED, "Язык: Русский")
    assert await rig.store.chat_settings(ADMIN) == ChatSettings(language="ru")
    assert "Язык: <b>Русский</b>" in (rig.messenger.chat(ADMIN)[-1].text or "")
    assert "✅ Русский" in [b.text for b in rig.panel_buttons(ADMIN)]
    back = await rig.tap(asker, panel_id, "🌐 Автоматически", app_language="en")
    assert back.text == "Language: your Telegram app's (English)"
    assert await rig.store.chat_settings(ADMIN) == ChatSettings(language=None)


async def test_a_group_panel_offers_no_automatic_language_and_shows_english_chosen(rig: Rig) -> None:
    await rig.open_panel(in_group(ADMIN), app_language="es")

    texts = [b.text for b in rig.panel_buttons(GROUP)]
    assert "✅ English" in texts
    assert not any("🌐" in t for t in texts)
    assert "Language: <b>English</b>" in (rig.messenger.chat(GROUP)[-1].text or "")
