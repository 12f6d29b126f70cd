"""/settings: the panel, its signed buttons, who may press them, and what a press saves."""

from __future__ import annotations

import asyncio
from secrets import token_bytes

from core.chat_settings.choices import ASK, ASK_FROM, QUALITY
from core.chat_settings.remembered_access import REMEMBER_SECONDS
from core.chat_settings.service import Outcome
from core.chat_settings.who_may_change import Asker
from core.texts import BUTTON_NOT_VALID
from core.texts import SETTINGS_CLOSED as CLOSED
from core.texts import SETTINGS_NOT_ADMIN as NOT_ADMIN
from core.trust.buttons import Press
from core.trust.callback_data import ButtonRef, sign_button
from core.trust.keys import InstallKeys
from ports.chat_settings import ChatSettings
from tests.support.chat_settings_rig import (
    ADMIN,
    GROUP,
    MEMBER,
    OTHER_GROUP,
    Rig,
    in_group,
    in_private,
)
from tests.support.clock import VirtualClock


async def test_a_private_panel_offers_quality_audio_and_files_but_no_long_video_choices(rig: Rig) -> None:
    await rig.open_panel(in_private(ADMIN))

    [panel] = rig.messenger.chat(ADMIN)
    texts = [b.text for b in rig.panel_buttons(ADMIN)]
    assert texts == [
        *("✅ Best", "1080p", "720p", "480p", "🎵 Audio only: off", "📄 Send as file: off"),
        *("✅ 🌐 Automatic", "English", "Español", "Русский", "✔️ Done"),
    ]
    assert panel.text is not None
    assert "Quality: <b>best that fits</b>" in panel.text


async def test_a_group_panel_shows_the_operators_threshold_until_the_group_picks_one(rig: Rig) -> None:
    await rig.open_panel(in_group(ADMIN))

    texts = [b.text for b in rig.panel_buttons(GROUP)]
    assert "⏱ Ask before long videos: on" in texts
    assert [t for t in texts if t.endswith(("m", "h")) and t[-2].isdigit()] == [
        "5m",
        "10m",
        "✅ 20m",
        "30m",
        "1h",
    ]


async def test_choosing_480p_saves_it_and_the_panel_shows_it(rig: Rig) -> None:
    asker = in_private(ADMIN)
    panel_id = await rig.open_panel(asker)

    answer = await rig.tap(asker, panel_id, "480p")

    assert (answer.outcome, answer.text) == (Outcome.CHANGED, "Quality: up to 480p")
    assert await rig.store.chat_settings(ADMIN) == ChatSettings(max_height=480)
    assert "✅ 480p" in [b.text for b in rig.panel_buttons(ADMIN)]
    assert "Quality: <b>up to 480p</b>" in (rig.messenger.chat(ADMIN)[-1].text or "")


async def test_the_toggles_and_the_threshold_change_one_field_each(rig: Rig) -> None:
    asker = in_group(ADMIN)
    panel_id = await rig.open_panel(asker)

    await rig.tap(asker, panel_id, "🎵 Audio only: off")
    threshold = await rig.tap(asker, panel_id, "1h")
    assert threshold.text == "Long videos: ask first when longer than 1h"
    assert await rig.store.chat_settings(GROUP) == ChatSettings(audio_only=True, ask_longer_than_seconds=3600)
    await rig.tap(asker, panel_id, "⏱ Ask before long videos: on")

    assert await rig.store.chat_settings(GROUP) == ChatSettings(
        audio_only=True, ask_long_videos=False, ask_longer_than_seconds=3600
    )
    texts = [b.text for b in rig.panel_buttons(GROUP)]
    assert "⏱ Ask before long videos: off" in texts
    assert "1h" not in texts  # no threshold while nothing asks


async def test_send_as_file_is_a_toggle_of_its_own_and_the_panel_says_what_it_means(rig: Rig) -> None:
    asker = in_private(ADMIN)
    panel_id = await rig.open_panel(asker)

    on = await rig.tap(asker, panel_id, "📄 Send as file: off")

    assert (on.outcome, on.text) == (Outcome.CHANGED, "Send as file: on")
    assert await rig.store.chat_settings(ADMIN) == ChatSettings(as_file=True)
    shown = rig.messenger.chat(ADMIN)[-1].text or ""
    assert "Send as file: <b>on</b> (videos come as documents: the original bytes, no player)" in shown
    off = await rig.tap(asker, panel_id, "📄 Send as file: on")
    assert off.text == "Send as file: off"
    assert await rig.store.chat_settings(ADMIN) == ChatSettings()


async def test_a_members_tap_in_a_group_is_refused_with_an_answer_and_changes_nothing(rig: Rig) -> None:
    panel_id = await rig.open_panel(in_group(ADMIN))

    answer = await rig.tap(in_group(MEMBER), panel_id, "480p")

    assert (answer.outcome, answer.text, answer.alert) == (Outcome.NOT_ALLOWED, NOT_ADMIN, True)
    assert await rig.store.chat_settings(GROUP) is None
    assert rig.messenger.chat(GROUP)[-1].edits == []


async def test_a_member_asking_for_the_panel_is_told_who_may(rig: Rig) -> None:
    await rig.service.show(in_group(MEMBER), reply_to=7)

    [reply] = rig.messenger.chat(GROUP)
    assert (reply.text, reply.reply_to, reply.keyboard) == (NOT_ADMIN, 7, None)


async def test_an_anonymous_admin_writing_as_the_group_gets_the_panel(rig: Rig) -> None:
    await rig.service.show(Asker(GROUP, "supergroup", GROUP, sender_chat_id=GROUP), reply_to=7)

    assert rig.panel_buttons(GROUP)


async def test_a_button_copied_to_another_chat_or_altered_is_not_valid(rig: Rig) -> None:
    asker = in_group(ADMIN)
    panel_id = await rig.open_panel(asker)
    data = rig.button(GROUP, "480p").callback_data or ""
    elsewhere = in_group(ADMIN, OTHER_GROUP)
    forged = sign_button(token_bytes(32), ButtonRef(QUALITY, "480"), GROUP, panel_id)

    copied = await rig.service.press(Press(data, OTHER_GROUP, panel_id, ADMIN), elsewhere)
    other_message = await rig.service.press(Press(data, GROUP, panel_id + 1, ADMIN), asker)
    foreign_key = await rig.service.press(Press(forged, GROUP, panel_id, ADMIN), asker)

    assert {copied.text, other_message.text, foreign_key.text} == {BUTTON_NOT_VALID}
    assert await rig.store.chat_settings(GROUP) is None
    assert await rig.store.chat_settings(OTHER_GROUP) is None


async def test_a_signed_value_the_panel_never_offers_is_not_valid(rig: Rig) -> None:
    asker = in_private(ADMIN)
    panel_id = await rig.open_panel(asker)
    key = await InstallKeys(rig.store, token_bytes).key("callback_data")
    odd = [
        sign_button(key, ButtonRef(QUALITY, "4320"), ADMIN, panel_id),
        sign_button(key, ButtonRef(ASK_FROM, "600"), ADMIN, panel_id),  # a group's choice
        sign_button(key, ButtonRef(ASK, "off"), ADMIN, panel_id),
    ]

    answers = [await rig.service.press(Press(data, ADMIN, panel_id, ADMIN), asker) for data in odd]

    assert {a.outcome for a in answers} == {Outcome.INVALID}
    assert await rig.store.chat_settings(ADMIN) is None


async def test_done_closes_the_panel_and_keeps_the_choices(rig: Rig) -> None:
    asker = in_private(ADMIN)
    panel_id = await rig.open_panel(asker)
    await rig.tap(asker, panel_id, "720p")

    answer = await rig.tap(asker, panel_id, "✔️ Done")

    assert answer.outcome is Outcome.CLOSED
    panel = rig.messenger.chat(ADMIN)[-1]
    assert (panel.text, panel.keyboard) == (CLOSED, None)
    assert await rig.store.chat_settings(ADMIN) == ChatSettings(max_height=720)


async def test_tapping_the_chosen_quality_again_changes_nothing(rig: Rig) -> None:
    asker = in_private(ADMIN)
    panel_id = await rig.open_panel(asker)

    answer = await rig.tap(asker, panel_id, "✅ Best")

    assert (answer.outcome, answer.text) == (Outcome.UNCHANGED, "Quality: best that fits")
    assert rig.messenger.chat(ADMIN)[-1].edits == []


async def test_two_admins_tapping_at_once_both_count(rig: Rig) -> None:
    rig.admins.admins.add(MEMBER)
    panel_id = await rig.open_panel(in_group(ADMIN))
    quality = rig.button(GROUP, "480p").callback_data or ""
    sound = rig.button(GROUP, "🎵 Audio only: off").callback_data or ""

    await asyncio.gather(
        rig.service.press(Press(quality, GROUP, panel_id, ADMIN), in_group(ADMIN)),
        rig.service.press(Press(sound, GROUP, panel_id, MEMBER), in_group(MEMBER)),
    )

    assert await rig.store.chat_settings(GROUP) == ChatSettings(max_height=480, audio_only=True)


async def test_the_admin_answer_is_remembered_briefly(rig: Rig, clock: VirtualClock) -> None:
    asker = in_group(ADMIN)
    panel_id = await rig.open_panel(asker)
    await rig.tap(asker, panel_id, "720p")
    await rig.tap(asker, panel_id, "480p")
    asked_for_three_taps = rig.admins.asked
    rig.admins.admins.clear()  # demoted
    await clock.advance(REMEMBER_SECONDS + 1)

    answer = await rig.tap(asker, panel_id, "1080p")

    assert asked_for_three_taps == 1
    assert answer.outcome is Outcome.NOT_ALLOWED
    assert await rig.store.chat_settings(GROUP) == ChatSettings(max_height=480)
