"""/audio, /settings and inline failures as a user sees them: the real bot process, real yt-dlp and
ffmpeg, the fake Bot API and the local video site (a video in four heights, made by ffmpeg)."""

from __future__ import annotations

import hashlib
import itertools
from typing import Any

import pytest

from testkit.telegram import Chat, User
from testkit.video_site.ladder import rung
from tests.e2e.conftest import CLIPS_DIR, INLINE_CACHE, WAIT_SECONDS, Stack, new_group, new_user

pytestmark = [pytest.mark.asyncio(loop_scope="package"), pytest.mark.slow]

NOT_ADMIN = "Only the group's administrators can change its settings."
_basic_ids = itertools.count(1)


def rung_sha256(height: int) -> str:
    return hashlib.sha256((CLIPS_DIR / rung(height).file_name).read_bytes()).hexdigest()


def site_fetches(stack: Stack, prefix: str) -> int:
    return sum(1 for r in stack.site.requests if r.path.startswith(prefix))


async def open_panel(stack: Stack, chat: Chat, user: User) -> tuple[int, dict[str, str]]:
    """`/settings` in `chat`: the panel's message id and its buttons, text → callback data."""
    asked = stack.api.send_text(chat, user, "/settings")

    def panel() -> Any:
        return next((m for m in stack.api.messages(chat.id) if m.reply_to == asked and m.reply_markup), None)

    shown = await stack.api.wait_for(panel, timeout=WAIT_SECONDS)
    rows = shown.reply_markup["inline_keyboard"]
    return shown.message_id, {b["text"]: b["callback_data"] for row in rows for b in row}


async def press(stack: Stack, chat: Chat, user: User, message_id: int, data: str) -> tuple[str | None, bool]:
    query = stack.api.press_button(chat, user, message_id, data)
    answer = await stack.api.wait_for(lambda: stack.api.callback_answer(query), timeout=WAIT_SECONDS)
    return answer.text, answer.show_alert


async def test_audio_sends_the_sound_and_a_second_ask_is_answered_by_file_id(shared: Stack) -> None:
    first, second = new_user(), new_user()
    url = await shared.site.add_ladder("/e2e/audio", "A song in a video")

    asked = shared.api.send_text(Chat.private(first), first, f"/audio {url}")
    sound = await shared.api.wait_for(
        lambda: next((a for a in shared.api.audios(first.id) if a.reply_to == asked), None),
        timeout=WAIT_SECONDS,
    )
    fetched = site_fetches(shared, "/e2e/audio")
    again = shared.api.send_text(Chat.private(second), second, f"/audio {url}")
    resent = await shared.api.wait_for(
        lambda: next((a for a in shared.api.audios(second.id) if a.reply_to == again), None),
        timeout=WAIT_SECONDS,
    )

    assert (sound.source, sound.file.kind, sound.duration) == ("upload", "audio", 2)
    # The page's poster (480x270) came embedded as the cover, and went up as the thumbnail.
    assert sound.thumbnail is not None
    assert sound.thumbnail.valid
    assert (sound.thumbnail.width, sound.thumbnail.height) == (320, 180)
    assert sound.title is not None
    assert sound.title.startswith("A song in a video")
    assert sound.file.file_name is not None
    assert sound.file.file_name.endswith(".m4a")
    assert (resent.source, resent.file.file_id) == ("file_id", sound.file.file_id)
    assert site_fetches(shared, "/e2e/audio") == fetched  # no scrape, no download
    assert shared.api.videos(first.id) == []


async def test_a_chat_on_480p_gets_a_480p_file_and_a_chat_on_best_its_own(shared: Stack) -> None:
    picky, other = new_user(), new_user()
    url = await shared.site.add_ladder("/e2e/ladder", "Four heights")
    panel_id, buttons = await open_panel(shared, Chat.private(picky), picky)

    said = await press(shared, Chat.private(picky), picky, panel_id, buttons["480p"])
    small_ask = shared.api.send_text(Chat.private(picky), picky, url)
    small = await shared.video_reply(picky.id, small_ask)
    best = await shared.video_reply(other.id, shared.api.send_text(Chat.private(other), other, url))

    assert said == ("Quality: up to 480p", False)
    panel = shared.api.message(picky.id, panel_id)
    assert panel is not None
    assert "Quality: up to 480p" in (panel.text or "")
    assert (small.height, small.sha256) == (480, rung_sha256(480))
    assert (best.height, best.sha256) == (720, rung_sha256(720))
    assert best.file_id != small.file_id
    assert best.source == small.source == "upload"


async def test_a_members_tap_on_a_groups_panel_is_refused_with_an_answer(shared: Stack) -> None:
    group, admin, member = new_group(), new_user(), new_user()
    shared.api.set_member_status(group, admin, "administrator")
    panel_id, buttons = await open_panel(shared, group, admin)

    refused = await press(shared, group, member, panel_id, buttons["480p"])
    allowed = await press(shared, group, admin, panel_id, buttons["🎵 Audio only: off"])

    assert refused == (NOT_ADMIN, True)
    assert allowed == ("Audio only: on", False)
    panel = shared.api.message(group.id, panel_id)
    assert panel is not None
    assert "Quality: <b>best that fits</b>" in (panel.sources[-1] or "")
    assert "Audio only: <b>on</b>" in (panel.sources[-1] or "")
    member_asks = shared.api.send_text(group, member, "/settings")
    reply = await shared.api.wait_for(
        lambda: next((m for m in shared.api.messages(group.id) if m.reply_to == member_asks), None),
        timeout=WAIT_SECONDS,
    )
    assert (reply.text, reply.reply_markup) == (NOT_ADMIN, None)


async def test_an_inline_job_that_fails_for_good_turns_its_placeholder_into_the_reason(shared: Stack) -> None:
    user = new_user()
    url = shared.site.url("/status/404")
    cached_before = shared.api.videos(INLINE_CACHE.id)
    query = shared.api.send_inline_query(user, url)
    answer = await shared.api.wait_for(lambda: shared.api.inline_answer(query), timeout=WAIT_SECONDS)
    full = str(answer.results[0]["id"])

    inline_id = shared.api.choose_inline_result(user, full, query=url)

    def failed() -> str | None:
        shown = shared.api.inline_message(inline_id)
        text = shown.text if shown is not None else None
        return text if text is not None and text.startswith("💥") else None

    text = await shared.api.wait_for(failed, timeout=WAIT_SECONDS)
    assert "404" in text
    assert text.startswith("💥 Download failed:")
    assert shared.api.videos(INLINE_CACHE.id) == cached_before


async def test_the_inline_audio_result_swaps_the_placeholder_for_the_sound(shared: Stack) -> None:
    user = new_user()
    url = await shared.site.add_ladder("/e2e/inline-audio", "A sound for inline")
    cached_before = len(shared.api.audios(INLINE_CACHE.id))
    query = shared.api.send_inline_query(user, url)
    answer = await shared.api.wait_for(lambda: shared.api.inline_answer(query), timeout=WAIT_SECONDS)
    [sound_offer] = [r for r in answer.results if r.get("title") == "🎵 Audio only"]

    inline_id = shared.api.choose_inline_result(user, str(sound_offer["id"]), query=url)
    edit = await shared.api.wait_for(
        lambda: next((e for e in shared.api.media_edits if e.inline_message_id == inline_id), None),
        timeout=WAIT_SECONDS,
    )

    assert (edit.media["type"], edit.file.kind) == ("audio", "audio")
    assert [a.file.file_id for a in shared.api.audios(INLINE_CACHE.id)][cached_before:] == [edit.file.file_id]


async def test_a_groups_choices_go_with_it_when_it_becomes_a_supergroup(shared: Stack) -> None:
    basic, admin = Chat.group(-4_000_000 - next(_basic_ids), "Basic group"), new_user()
    shared.api.set_member_status(basic, admin, "administrator")
    url = await shared.site.add_ladder(f"/e2e/migrating{basic.id}", "Migrating")
    panel_id, buttons = await open_panel(shared, basic, admin)
    await press(shared, basic, admin, panel_id, buttons["480p"])

    supergroup = shared.api.migrate_group(basic.id, -1_002_000_000_000 + basic.id)
    video = await shared.video_reply(supergroup.id, shared.api.send_text(supergroup, admin, url))

    assert (video.height, video.sha256) == (480, rung_sha256(480))


def buttons_now(stack: Stack, chat: Chat, panel_id: int) -> dict[str, str]:
    """The panel's buttons as it shows them now (each press re-signs them for what it shows)."""
    panel = stack.api.message(chat.id, panel_id)
    assert panel is not None
    assert panel.reply_markup is not None
    return {b["text"]: b["callback_data"] for row in panel.reply_markup["inline_keyboard"] for b in row}


async def test_a_chat_that_chose_send_as_file_gets_the_original_bytes_as_a_document(shared: Stack) -> None:
    user = new_user()
    chat = Chat.private(user)
    url = await shared.site.add_ladder("/e2e/as-file", "A clip to keep")
    panel_id, buttons = await open_panel(shared, chat, user)

    said = await press(shared, chat, user, panel_id, buttons["📄 Send as file: off"])
    asked = shared.api.send_text(chat, user, url)
    document = await shared.api.wait_for(
        lambda: next((d for d in shared.api.documents(user.id) if d.reply_to == asked), None),
        timeout=WAIT_SECONDS,
    )
    fetched = site_fetches(shared, "/e2e/as-file")
    again_asked = shared.api.send_text(chat, user, url)
    again = await shared.api.wait_for(
        lambda: next((d for d in shared.api.documents(user.id) if d.reply_to == again_asked), None),
        timeout=WAIT_SECONDS,
    )
    fetched_again = site_fetches(shared, "/e2e/as-file")
    await press(shared, chat, user, panel_id, buttons_now(shared, chat, panel_id)["📄 Send as file: on"])
    as_video = await shared.video_reply(user.id, shared.api.send_text(chat, user, url))

    assert said == ("Send as file: on", False)
    assert (document.source, document.file.kind) == ("upload", "document")
    assert document.file.sha256 == rung_sha256(720)  # the bytes as the site served them
    assert not document.content_type_detection  # Telegram was told to keep it a file
    assert document.file.file_name is not None
    assert document.file.file_name.startswith("A clip to keep")
    assert (again.source, again.file.file_id) == ("file_id", document.file.file_id)
    assert fetched_again == fetched  # the second: no scrape, no download
    assert as_video.sha256 == document.file.sha256
    assert as_video.file_id != document.file.file_id  # a file and a video of the same bytes: two ids
    assert [d.reply_to for d in shared.api.documents(user.id)] == [asked, again_asked]
