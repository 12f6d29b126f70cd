"""What a user sees, with the real bot process, real yt-dlp and our fake Bot API."""

from __future__ import annotations

import asyncio

import pytest

from testkit.telegram import Chat
from testkit.video_site import Body, FailThen, Redirect, Stall, VideoServer
from tests.e2e.conftest import (
    ADMIN,
    CLIPS_DIR,
    INLINE_CACHE,
    WAIT_SECONDS,
    Stack,
    new_group,
    new_user,
    sha256_of,
)

pytestmark = [pytest.mark.asyncio(loop_scope="package"), pytest.mark.slow]


def clip_route(stack: Stack, path: str, clip: str = "short") -> str:
    """Serve a clip under a path of this test's own, so no other test shares its blob or counter."""
    stack.site.set_route(path, Body(stack.site.clip(clip).read_bytes(), "video/mp4"))
    return stack.site.url(path)


async def test_a_private_link_arrives_as_the_video_and_its_log_message_settles_after_it(
    shared: Stack,
) -> None:
    user = new_user()
    url = clip_route(shared, "/e2e/private.mp4")
    message_id = shared.api.send_text(Chat.private(user), user, f"look {url}")
    video = await shared.video_reply(user.id, message_id)
    assert video.sha256 == sha256_of(shared.site.clip("short"))
    assert video.source == "upload"
    assert (video.duration, video.width, video.height, video.supports_streaming) == (2, 160, 120, True)
    log = await shared.log_until(user.id, message_id, lambda t: "✅ Sent" in t)
    assert log.reply_to == message_id
    assert log.silent
    assert log.link_preview_disabled
    assert log.texts[0] == "🧐 Scraping URL..."  # sent when the link was accepted
    final = log.history[-1]
    assert "🎬 Video info:" in (final.text or "")
    assert "⬇️" not in (final.text or "")
    assert final.at >= video.at  # the video went first, the settling edit after it


async def test_the_same_url_from_another_chat_is_sent_by_file_id_without_touching_the_site(
    shared: Stack,
) -> None:
    first, second = new_user(), new_user()
    url = clip_route(shared, "/e2e/cached.mp4")
    await shared.video_reply(first.id, shared.api.send_text(Chat.private(first), first, url))
    hits = shared.site.hits("/e2e/cached.mp4")
    video = await shared.video_reply(second.id, shared.api.send_text(Chat.private(second), second, url))
    assert video.source == "file_id"
    assert shared.site.hits("/e2e/cached.mp4") == hits
    log = await shared.log_until(second.id, video.reply_to or 0, lambda t: "✅ Sent" in t)
    assert "🎬 Video info:" in (log.text or "")  # what the video is, though nothing was fetched


async def test_503_twice_then_ok_is_delivered_with_the_retries_in_one_message(shared: Stack) -> None:
    user = new_user()
    clip = Body(shared.site.clip("short").read_bytes(), "video/mp4")
    shared.site.set_route("/e2e/flaky.mp4", FailThen(503, 2, clip))
    message_id = shared.api.send_text(Chat.private(user), user, shared.site.url("/e2e/flaky.mp4"))
    await shared.video_reply(user.id, message_id)
    log = await shared.log_until(user.id, message_id, lambda t: "✅ Sent" in t)
    assert len([m for m in shared.api.messages(user.id) if m.video is None]) == 1
    text = log.text or ""
    assert "⚠️ Download failed, retrying (attempt 2 of 3)..." in text
    assert "💥" not in text
    assert text.index("attempt 2 of 3") < text.index("✅ Sent")


async def test_a_link_that_always_503s_ends_in_one_message_with_both_retries_and_the_failure(
    shared: Stack,
) -> None:
    user = new_user()
    message_id = shared.api.send_text(Chat.private(user), user, shared.site.url("/status/503"))
    log = await shared.log_until(user.id, message_id, lambda t: "💥" in t)
    text = log.text or ""
    assert text.index("attempt 2 of 3") < text.index("attempt 3 of 3") < text.index("💥 Download failed:")
    assert "HTTP Error 503" in text
    assert "Traceback" not in text
    assert len([m for m in shared.api.messages(user.id) if m.video is None]) == 1


async def test_an_unsupported_page_fails_at_once_without_retrying(shared: Stack) -> None:
    user = new_user()
    shared.site.set_route("/e2e/words.html", Body(b"<html><body><p>Only words.</p></body></html>"))
    message_id = shared.api.send_text(Chat.private(user), user, shared.site.url("/e2e/words.html"))
    log = await shared.log_until(user.id, message_id, lambda t: "💥" in t)
    assert "💥 Download failed: Unsupported URL" in (log.text or "")
    assert "⚠️" not in (log.text or "")
    assert shared.site.hits("/e2e/words.html") == 1


async def test_a_group_link_gets_the_video_and_no_progress_message(shared: Stack) -> None:
    group, user = new_group(), new_user()
    url = clip_route(shared, "/e2e/group.mp4")
    message_id = shared.api.send_text(group, user, f"watch this {url}")
    video = await shared.video_reply(group.id, message_id)
    assert video.reply_to == message_id
    assert [m for m in shared.api.messages(group.id) if m.video is None] == []


async def test_a_group_failure_is_a_reaction_and_not_a_video_stays_silent(shared: Stack) -> None:
    group, user = new_group(), new_user()
    gone = shared.api.send_text(group, user, shared.site.url("/status/404"))
    words = shared.api.send_text(group, user, shared.site.url("/pages/no-video.html"))
    reaction = await shared.api.wait_for(lambda: shared.api.reactions(group.id), timeout=WAIT_SECONDS)
    assert [(r.message_id, r.emojis) for r in reaction] == [(gone, ("😢",))]
    marker = clip_route(shared, "/e2e/after-failures.mp4")
    await shared.video_reply(group.id, shared.api.send_text(group, user, marker))
    assert words not in [r.message_id for r in shared.api.reactions(group.id)]
    assert [m for m in shared.api.messages(group.id) if m.video is None] == []


async def test_a_first_send_answered_429_is_delivered_after_retry_after(shared: Stack) -> None:
    user = new_user()
    url = clip_route(shared, "/e2e/flood.mp4")
    shared.api.fail_next("sendVideo", code=429, retry_after=1, chat_id=user.id)
    message_id = shared.api.send_text(Chat.private(user), user, url)
    video = await shared.video_reply(user.id, message_id)
    attempts = [c for c in shared.api.calls_of("sendVideo") if c.chat_id == user.id]
    assert [c.error_code for c in attempts] == [429, None]
    assert video.at - attempts[0].at >= 1.0


async def test_a_long_video_in_a_group_asks_and_another_member_confirms(shared: Stack) -> None:
    group, asker, other = new_group(), new_user(), new_user()
    message_id = shared.api.send_text(group, asker, shared.site.url("/pages/long.html"))
    prompt = await shared.api.wait_for(
        lambda: next((m for m in shared.api.messages(group.id) if m.reply_markup), None), timeout=WAIT_SECONDS
    )
    assert prompt.text == "This video is pretty long (25m), download it anyway?"
    buttons = prompt.reply_markup["inline_keyboard"][0] if prompt.reply_markup else []
    assert [b["text"] for b in buttons] == ["👍 Yes please", "👎 No thanks"]
    confirm, cancel = (b["callback_data"] for b in buttons)
    refused = shared.api.press_button(group, other, prompt.message_id, cancel)
    answer = await shared.api.wait_for(lambda: shared.api.callback_answer(refused), timeout=WAIT_SECONDS)
    assert answer.text == "Only the person who sent the link can cancel."
    shared.api.press_button(group, other, prompt.message_id, confirm)
    video = await shared.video_reply(group.id, message_id, timeout=120)
    assert video.duration == 1500


async def test_confirm_and_cancel_in_one_batch_have_exactly_one_outcome(shared: Stack) -> None:
    group, asker = new_group(), new_user()
    message_id = shared.api.send_text(group, asker, shared.site.url("/pages/long.html") + "?batch")
    prompt = await shared.api.wait_for(
        lambda: next((m for m in shared.api.messages(group.id) if m.reply_markup), None), timeout=WAIT_SECONDS
    )
    buttons = prompt.reply_markup["inline_keyboard"][0] if prompt.reply_markup else []
    confirm, cancel = (b["callback_data"] for b in buttons)
    yes = shared.api.press_button(group, asker, prompt.message_id, confirm)
    no = shared.api.press_button(group, asker, prompt.message_id, cancel)
    answers = await shared.api.wait_for(
        lambda: (
            (a, b)
            if (a := shared.api.callback_answer(yes)) and (b := shared.api.callback_answer(no))
            else None
        )
    )
    texts = sorted(a.text or "" for a in answers)
    assert "This request is no longer available." in texts
    won = [t for t in texts if t != "This request is no longer available."]
    assert len(won) == 1
    if won == ["👍 On it!"]:
        await shared.video_reply(group.id, message_id, timeout=120)
    else:
        assert won == ["👎 Cancelled."]


BAD_INPUTS: list[tuple[str, list[dict[str, object]] | None]] = [
    ("just words, no link at all", None),
    ("a hidden link", [{"type": "text_link", "offset": 2, "length": 6, "url": "http://127.0.0.1:1/x.mp4"}]),
    ("file:///etc/passwd", [{"type": "url", "offset": 0, "length": 18}]),
    ("ftp://127.0.0.1/video.mp4", [{"type": "url", "offset": 0, "length": 25}]),
    ("x" * 20_000, None),
    ("\u202e\u0000🎬\ud83d zalgo z̷̢̛a̸l̵g̴o \uffff", None),
    ("short", [{"type": "url", "offset": 3, "length": 400}, {"type": "url", "offset": -4, "length": 2}]),
]


@pytest.mark.parametrize(("text", "entities"), BAD_INPUTS)
async def test_bad_input_is_ignored_or_refused_and_the_next_link_works(
    shared: Stack, text: str, entities: list[dict[str, object]] | None
) -> None:
    user = new_user()
    chat = Chat.private(user)
    hits_before = len(shared.site.requests)
    shared.api.send_text(
        chat, user, text.encode("utf-16", "surrogatepass").decode("utf-16", "replace"), entities=entities
    )  # type: ignore[arg-type]
    url = clip_route(shared, f"/e2e/after-bad-{user.id}.mp4")
    video = await shared.video_reply(user.id, shared.api.send_text(chat, user, url))
    assert video.sha256 == sha256_of(shared.site.clip("short"))
    paths = [r.path for r in shared.site.requests[hits_before:]]
    assert all(p.startswith("/e2e/after-bad-") for p in paths), paths
    bot_texts = [m.text or "" for m in shared.api.messages(user.id) if m.video is None]
    assert all("Traceback" not in t for t in bot_texts)


async def test_a_stalled_site_times_out_without_stalling_other_chats(shared: Stack) -> None:
    slow_user, quick_user = new_user(), new_user()
    shared.site.set_route("/e2e/stall.mp4", Stall())
    shared.api.send_text(Chat.private(slow_user), slow_user, shared.site.url("/e2e/stall.mp4"))
    await asyncio.sleep(0)  # both links queued; the stalled one first
    url = clip_route(shared, "/e2e/quick.mp4")
    video = await shared.video_reply(
        quick_user.id, shared.api.send_text(Chat.private(quick_user), quick_user, url)
    )
    assert video.sha256 == sha256_of(shared.site.clip("short"))


async def test_start_and_help_explain_the_bot_in_private(shared: Stack) -> None:
    user = new_user()
    start = shared.api.send_text(Chat.private(user), user, "/start")
    reply = await shared.api.wait_for(
        lambda: next(
            (m for m in shared.api.messages(user.id) if m.reply_to is None or m.reply_to == start), None
        ),
        timeout=WAIT_SECONDS,
    )
    assert "Send me a link to a video" in (reply.text or "")


async def test_status_answers_admins_only(shared: Stack) -> None:
    outsider = new_user()
    ignored = shared.api.send_text(Chat.private(outsider), outsider, "/status")
    asked = shared.api.send_text(Chat.private(ADMIN), ADMIN, "/status")
    reply = await shared.api.wait_for(
        lambda: next((m for m in shared.api.messages(ADMIN.id) if m.reply_to == asked), None),
        timeout=WAIT_SECONDS,
    )
    for field in ("Queue:", "In flight:", "Failed:", "yt-dlp:", "Last update check:"):
        assert field in (reply.text or "")
    assert [m for m in shared.api.messages(outsider.id) if m.reply_to == ignored] == []


async def test_verbose_streams_ytdlp_output_for_admins_and_is_a_plain_link_for_everyone_else(
    shared: Stack,
) -> None:
    outsider = new_user()
    theirs = clip_route(shared, "/e2e/verbose/outsider.mp4")
    asked = shared.api.send_text(Chat.private(outsider), outsider, f"/verbose {theirs}")
    admins = clip_route(shared, "/e2e/verbose/admin.mp4")
    admin_asked = shared.api.send_text(Chat.private(ADMIN), ADMIN, f"/verbose {admins}")

    video = await shared.video_reply(outsider.id, asked)  # the normal flow, video and all
    assert video.sha256 == sha256_of(shared.site.clip("short"))
    log = await shared.log_until(outsider.id, asked, lambda t: "✅ Sent" in t)
    assert not any("[debug]" in (text or "") for text in log.texts)  # no server details for them
    await shared.video_reply(ADMIN.id, admin_asked)

    def shows_output() -> bool:
        log = shared.log_message(ADMIN.id, admin_asked)
        return log is not None and any("[debug]" in (text or "") for text in log.texts)

    assert await shared.api.wait_for(shows_output, timeout=WAIT_SECONDS)


async def test_id_tells_a_user_their_id_and_the_chats_in_private_and_in_groups(shared: Stack) -> None:
    user, group = new_user(), new_group()
    asked = shared.api.send_text(Chat.private(user), user, "/id")
    in_group = shared.api.send_text(group, user, "/id")

    def reply_to(chat_id: int, message_id: int) -> str | None:
        found = [m for m in shared.api.messages(chat_id) if m.reply_to == message_id]
        return found[0].text if found else None

    private = await shared.api.wait_for(lambda: reply_to(user.id, asked), timeout=WAIT_SECONDS)
    grouped = await shared.api.wait_for(lambda: reply_to(group.id, in_group), timeout=WAIT_SECONDS)
    assert private == f"Your user id: {user.id}\nThis chat's id: {user.id}"
    assert grouped == f"Your user id: {user.id}\nThis chat's id: {group.id}"


async def test_editing_a_private_message_runs_only_the_new_link(shared: Stack) -> None:
    user = new_user()
    chat = Chat.private(user)
    first = clip_route(shared, f"/e2e/edit-first-{user.id}.mp4")
    second = clip_route(shared, f"/e2e/edit-second-{user.id}.mp4", "medium")
    message_id = shared.api.send_text(chat, user, f"one {first}")
    await shared.video_reply(user.id, message_id)
    hits = shared.site.hits(f"/e2e/edit-first-{user.id}.mp4")
    shared.api.send_edited_text(chat, user, message_id, f"one {first} and {second}")
    await shared.api.wait_for(lambda: len(shared.api.videos(user.id)) == 2, timeout=WAIT_SECONDS)
    assert shared.site.hits(f"/e2e/edit-first-{user.id}.mp4") == hits
    assert shared.api.videos(user.id)[1].sha256 == sha256_of(shared.site.clip("medium"))


async def test_inline_mode_swaps_a_placeholder_for_the_video_then_answers_from_cache(shared: Stack) -> None:
    user = new_user()
    url = clip_route(shared, "/e2e/inline.mp4")
    cached_before = len(shared.api.videos(INLINE_CACHE.id))
    ignored_before = shared.bot.log().count("ignored a chosen inline result the bot did not offer")
    first = shared.api.send_inline_query(user, url)
    answer = await shared.api.wait_for(lambda: shared.api.inline_answer(first), timeout=WAIT_SECONDS)
    # Each id is a signed offer: the variant, when, and a tag binding both to this user and link.
    assert [(r["type"], str(r["id"]).split(":")[0]) for r in answer.results] == [
        ("article", "full"),
        ("article", "no_caption"),
        ("article", "no_source"),
        ("article", "audio"),
    ]
    full = str(answer.results[0]["id"])
    # Another user naming this user's offer, and an id the bot never made, queue nothing.
    refused = {
        shared.api.choose_inline_result(new_user(), full, query=url),
        shared.api.choose_inline_result(user, "full", query=url),
    }
    inline_id = shared.api.choose_inline_result(user, full, query=url)
    edit = await shared.api.wait_for(
        lambda: next((e for e in shared.api.media_edits if e.inline_message_id == inline_id), None),
        timeout=WAIT_SECONDS,
    )
    assert edit.file.sha256 == sha256_of(shared.site.clip("short"))
    assert [v.file_id for v in shared.api.videos(INLINE_CACHE.id)][cached_before:] == [edit.file.file_id]
    assert [e for e in shared.api.media_edits if e.inline_message_id in refused] == []
    ignored = shared.bot.log().count("ignored a chosen inline result the bot did not offer")
    assert ignored - ignored_before == 2
    again = shared.api.send_inline_query(user, url)
    cached = await shared.api.wait_for(lambda: shared.api.inline_answer(again), timeout=WAIT_SECONDS)
    # The video is cached now; its sound is still a placeholder, until somebody picks it.
    assert [r["type"] for r in cached.results] == ["video", "video", "video", "article"]
    assert {r["video_file_id"] for r in cached.results[:3]} == {edit.file.file_id}


async def test_a_redirect_or_hls_segments_to_a_port_off_the_allowlist_fail_with_the_reason(
    shared: Stack,
) -> None:
    """The bot's guard lets exactly the site's port through: what leads elsewhere on 127.0.0.1 —
    a page that redirects there, a playlist whose segments live there — reaches nothing there."""
    async with VideoServer(CLIPS_DIR) as elsewhere:
        await elsewhere.add_hls("/e2e/guard")  # there to be fetched, were a request to get through
        shared.site.set_route("/e2e/guard/watch", Redirect(elsewhere.url("/clips/short.mp4")))
        await shared.site.add_hls("/e2e/guard", segments_base=elsewhere.base_url)
        for path in ("/e2e/guard/watch", "/e2e/guard/index.m3u8"):
            user = new_user()
            message_id = shared.api.send_text(Chat.private(user), user, shared.site.url(path))
            log = await shared.log_until(user.id, message_id, lambda t: "💥" in t)
            assert "refused: the link leads to a private address (127.0.0.1)" in (log.text or "")
            assert "retrying" not in (log.text or "")  # a refusal is final: one attempt
            assert shared.site.hits(path) >= 1
        assert elsewhere.requests == []
