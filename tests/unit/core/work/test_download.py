"""download_video end to end over in-process fakes, on virtual time."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from core.jobs.context import JobContext
from core.requests.download import DownloadRequest
from core.requests.job_names import DOWNLOAD_VIDEO
from core.trust.buttons import Press
from core.work.download.chat_report import ChatReports
from ports.jobs import Job
from ports.media import VideoInfo
from ports.messenger import MessengerError
from tests.support.clock import VirtualClock, settle
from tests.support.downloader import http_error, video
from tests.support.messenger import WRONG_FILE_ID
from tests.support.world import GROUP_CHAT, OTHER_USER, PRIVATE_CHAT, USER, World

URL = "https://videos.example/watch/1"


def log_text(world: World, chat: int = PRIVATE_CHAT) -> str:
    [log] = [m for m in world.messenger.chat(chat) if m.text is not None]
    return log.text or ""


def videos(world: World, chat: int) -> list[str]:
    return [m.video for m in world.messenger.chat(chat) if m.video]


async def test_a_fast_private_link_is_the_log_message_the_video_and_one_settling_edit(
    world: World,
) -> None:
    world.downloader.serve(URL)
    message_id = await world.post(URL)
    await world.idle_now()  # a fast job: no time passes while it runs
    [log, sent] = world.messenger.chat(PRIVATE_CHAT)
    assert sent.video is not None
    assert sent.reply_to == message_id
    assert log.reply_to == message_id
    assert log.first_text == "🧐 <b>Scraping</b> URL..."  # sent when the link was accepted
    [settled] = log.edits  # the stages in between passed before an edit was due
    assert "🎬 <b>Video info:</b>" in settled
    assert settled.endswith("✅ <b>Sent</b> (0.00 MB)")
    assert [c for c in world.messenger.calls if c != "send_video"] == ["send_text", "edit_text"]
    record = await world.store.blob("testsite:v1:18")
    assert record is not None
    assert record.file_id == sent.video
    assert record.file_name is None  # the bytes went once Telegram had the video
    assert list((world.files.blob_dir).iterdir()) == []


async def test_a_slow_download_shows_its_progress_at_most_every_three_seconds(
    world: World, clock: VirtualClock
) -> None:
    world.downloader.serve(URL)
    world.downloader.slow["v1"] = 20.0
    await world.post(URL)
    await world.idle()
    [log, _] = world.messenger.chat(PRIVATE_CHAT)
    progress = [text for text in log.edits if "%" in text]
    assert len(progress) >= 5
    assert log.edits[-1].endswith("✅ <b>Sent</b> (0.00 MB)")
    assert "[" not in log.edits[-1]  # the bar went with the download


async def test_a_queued_link_says_so_and_the_same_message_carries_its_job(world: World) -> None:
    world.downloader.serve(URL)
    others = [f"https://videos.example/watch/{n}" for n in range(2, 6)]
    for other in others:
        world.downloader.serve(other, video(other, other.rsplit("/", 1)[1]))
        world.downloader.slow[other.rsplit("/", 1)[1]] = 10.0
        await world.post(other, chat_id=PRIVATE_CHAT + 1, user_id=OTHER_USER)
    await settle()  # the workers took three of them
    await world.post(URL)
    await settle()
    [log] = world.messenger.chat(PRIVATE_CHAT)
    # Another user's 4 jobs came first, 3 of them run: the fair order puts this newcomer before
    # the 4th, so only one of the running must finish first.
    assert log.first_text == "⏳ <b>Queued</b> — 1 ahead of you"
    await world.idle()
    [log, sent] = world.messenger.chat(PRIVATE_CHAT)
    assert sent.video is not None
    assert log.text is not None
    assert log.text.endswith("✅ <b>Sent</b> (0.00 MB)")


async def test_nothing_reaches_the_chat_after_a_too_large_refusal(world: World, clock: VirtualClock) -> None:
    world.downloader.serve(URL, video(URL, filesize=None))
    world.downloader.content["v1"] = b"x" * (world.settings.upload_limit_bytes + 1)
    world.downloader.slow["v1"] = 10.0  # progress keeps coming until the bytes are measured
    await world.post(URL)
    await world.idle()
    [log, refusal] = world.messenger.chat(PRIVATE_CHAT)
    assert refusal.text is not None
    assert refusal.text.startswith("😞 Video too large")
    edits_at_the_end = list(log.edits)
    await clock.advance(30)
    assert log.edits == edits_at_the_end
    assert world.messenger.calls[-1] == "send_text"  # the refusal was the chat's last word


async def test_the_same_video_from_another_chat_is_sent_by_file_id(world: World) -> None:
    world.downloader.serve(URL)
    await world.post(URL)
    await world.idle()
    await world.post(URL, chat_id=GROUP_CHAT, user_id=OTHER_USER)
    await world.idle()
    assert world.downloader.scrapes == [URL]
    assert world.downloader.downloads == ["v1"]
    assert videos(world, GROUP_CHAT) == videos(world, PRIVATE_CHAT)


async def test_transient_failures_retry_in_the_same_log_message(world: World) -> None:
    world.downloader.serve(URL)
    world.downloader.download_failures["v1"].extend(
        [http_error(503, "video data"), http_error(503, "video data")]
    )
    await world.post(URL)
    await world.idle()
    text = log_text(world)
    assert "⚠️ <b>Download failed</b>, retrying (attempt 2 of 3)" in text
    assert "(attempt 3 of 3)" in text
    assert "💥" not in text
    assert len(videos(world, PRIVATE_CHAT)) == 1


async def test_a_link_that_always_fails_ends_in_one_message_with_every_attempt(world: World) -> None:
    world.downloader.serve(URL)
    world.downloader.download_failures["v1"].extend([http_error(503, "video data")] * 3)
    await world.post(URL)
    await world.idle()
    text = log_text(world)
    assert text.index("attempt 2 of 3") < text.index("attempt 3 of 3") < text.index("💥")
    assert "💥 <b>Download failed</b>: Unable to download video data: HTTP Error 503: Oops" in text
    assert videos(world, PRIVATE_CHAT) == []
    [failed] = await world.store.list_failed()
    assert failed.attempts == 3


async def test_an_unsupported_page_fails_at_once_and_can_be_retried_by_editing(world: World) -> None:
    message_id = await world.post(URL)
    await world.idle()
    assert world.downloader.scrapes == [URL]
    assert "💥 <b>Download failed</b>: Unsupported URL: https://example.com/page" in log_text(world)
    assert "⚠️" not in log_text(world)
    # the handled mark was dropped, so the same message may enqueue the URL again
    world.downloader.serve(URL)
    from core.incoming.intake.message import IncomingMessage
    from core.urls import Entity

    text = f"now {URL}"
    report = await world.intake.accept(
        IncomingMessage(PRIVATE_CHAT, "private", message_id, USER, text, [Entity("url", 4, len(URL))])
    )
    assert report.accepted == [URL]


async def test_groups_get_the_video_and_no_progress_messages(world: World) -> None:
    world.downloader.serve(URL)
    await world.post(URL, chat_id=GROUP_CHAT)
    await world.idle()
    [sent] = world.messenger.chat(GROUP_CHAT)
    assert sent.video is not None


async def test_a_group_failure_is_a_reaction_and_not_a_video_stays_silent(world: World) -> None:
    world.downloader.serve(URL)
    world.downloader.download_failures["v1"].extend([http_error(404, "webpage")])
    failing_message = await world.post(URL, chat_id=GROUP_CHAT)
    await world.post("https://videos.example/text-post", chat_id=GROUP_CHAT)
    await world.idle()
    assert world.messenger.chat(GROUP_CHAT) == []
    assert world.messenger.reactions == [(GROUP_CHAT, failing_message, "😢")]


async def test_a_video_too_large_before_download_is_refused_with_its_size(world: World) -> None:
    # Unwatchable in 50 MB, and more than the 8 parts of 50 MB a video may be cut into
    world.downloader.serve(URL, video(URL, filesize=400_000_000, duration=9000.0))
    await world.post(URL)
    await world.idle()
    assert world.downloader.downloads == []
    assert "😞 Video too large (400 MB): it would take more than 8 parts" in world.messenger.texts(
        PRIVATE_CHAT
    )


async def test_a_download_cap_below_the_upload_limit_refuses_before_download(
    clock: VirtualClock, tmp_path: Path
) -> None:
    world = World(clock, tmp_path, VIDRELAY_MAX_DOWNLOAD_BYTES="1000000")
    await world.engine.start()
    world.downloader.serve(URL, video(URL, filesize=4_000_000))  # under the upload limit, over the cap
    await world.post(URL)
    await world.idle()
    await world.engine.stop(grace_seconds=0)
    assert world.downloader.downloads == []
    assert "😞 Video too large (4 MB)" in world.messenger.texts(PRIVATE_CHAT)


async def test_a_video_too_large_after_download_is_refused_and_its_bytes_kept_for_nobody(
    world: World,
) -> None:
    world.downloader.serve(URL, video(URL, filesize=None))
    world.downloader.content["v1"] = b"x" * (world.settings.upload_limit_bytes + 1)
    await world.post(URL)
    await world.idle()
    assert any(t.startswith("😞 Video too large") for t in world.messenger.texts(PRIVATE_CHAT))
    assert videos(world, PRIVATE_CHAT) == []


async def test_a_long_group_video_asks_first_and_anyone_may_confirm(world: World) -> None:
    world.downloader.serve(URL, video(URL, duration=25 * 60))
    await world.post(URL, chat_id=GROUP_CHAT)
    await world.idle()
    [prompt] = world.messenger.chat(GROUP_CHAT)
    assert prompt.text == "This video is pretty long (25m), download it anyway?"
    assert prompt.keyboard is not None
    [[yes, no]] = prompt.keyboard
    assert (yes.text, no.text) == ("👍 Yes please", "👎 No thanks")
    assert world.downloader.downloads == []
    assert yes.callback_data is not None
    assert no.callback_data is not None

    def press(data: str, user_id: int) -> Press:
        return Press(data, GROUP_CHAT, prompt.message_id, user_id)

    assert (await world.confirmations.press(press(no.callback_data, OTHER_USER))).value == "not_requester"
    assert (await world.confirmations.press(press(yes.callback_data, OTHER_USER))).value == "confirmed"
    assert (await world.confirmations.press(press(no.callback_data, USER))).value == "gone"
    await world.idle()
    assert len(videos(world, GROUP_CHAT)) == 1


def page_entries(url: str, count: int) -> list[VideoInfo]:
    """A page's <video> tags as yt-dlp lists them: html5 entries that share the page's URL and
    the format id, told apart only by their place (and an id made of it)."""
    return [video(url, f"page-{n}", extractor="html5", format_id="0", entry=n) for n in range(1, count + 1)]


async def test_a_multi_video_post_fans_out_one_job_per_video(world: World) -> None:
    photo = video(URL, "photo", extractor="html5", format_id="0", entry=4, has_video=False)
    world.downloader.serve(URL, *page_entries(URL, 3), photo)
    message_id = await world.post(URL)
    await world.idle()
    assert sorted(world.downloader.downloads) == ["page-1", "page-2", "page-3"]
    sent = [m for m in world.messenger.chat(PRIVATE_CHAT) if m.video]
    assert len({m.video for m in sent}) == 3
    assert {m.reply_to for m in sent} == {message_id}


async def test_a_multi_video_post_again_is_sent_by_file_id_without_a_download(world: World) -> None:
    world.downloader.serve(URL, *page_entries(URL, 3))
    await world.post(URL)
    await world.idle()
    first = videos(world, PRIVATE_CHAT)
    await world.post(URL, chat_id=GROUP_CHAT)
    await world.idle()
    assert sorted(videos(world, GROUP_CHAT)) == sorted(first)
    assert len(world.downloader.downloads) == 3


async def test_more_than_ten_videos_says_so_and_sends_ten(world: World) -> None:
    world.downloader.serve(URL, *[video(URL, f"v{n}") for n in range(11)])
    await world.post(URL)
    await world.idle()
    assert "📚 More than 10 videos here" in world.messenger.texts(PRIVATE_CHAT)
    assert len(videos(world, PRIVATE_CHAT)) == 10


async def test_a_file_id_telegram_refuses_is_cleared_and_the_video_downloaded_again(world: World) -> None:
    world.downloader.serve(URL)
    await world.post(URL)
    await world.idle()
    world.messenger.fail_next("send_video", MessengerError(WRONG_FILE_ID, 400))
    await world.post(URL, chat_id=GROUP_CHAT)
    await world.idle()
    assert world.downloader.downloads == ["v1", "v1"]
    assert len(videos(world, GROUP_CHAT)) == 1


async def test_flood_control_on_send_waits_retry_after(world: World, clock: VirtualClock) -> None:
    world.downloader.serve(URL)
    world.messenger.fail_next("send_video", MessengerError("Too Many Requests: retry after 20", 429, 20))
    await world.post(URL)
    started = clock.now()
    await world.idle()
    assert len(videos(world, PRIVATE_CHAT)) == 1
    assert clock.now() - started >= 20


async def test_a_private_address_is_refused_before_any_request(world: World) -> None:
    report_message = await world.post("http://localhost:8080/clip.mp4")
    await world.idle()
    assert report_message > 0
    assert world.downloader.scrapes == []
    assert (await world.store.counts()).waiting == 0


async def test_verbose_streams_output_into_the_log(world: World) -> None:
    world.downloader.serve(URL)
    await world.post(URL, verbose=True)
    await world.idle()
    assert "<code>[testsite] https://videos.example/watch/1: Downloading webpage</code>" in log_text(world)


async def test_a_group_that_became_a_supergroup_still_gets_its_video(world: World) -> None:
    world.downloader.serve(URL)
    supergroup = -1000000555555
    migrated = MessengerError(
        "Bad Request: group chat was upgraded to a supergroup chat", 400, migrate_to_chat_id=supergroup
    )
    world.messenger.fail_next("send_video", migrated)
    await world.post(URL, chat_id=GROUP_CHAT, chat_type="group")
    await world.idle()
    assert videos(world, GROUP_CHAT) == []
    assert len(videos(world, supergroup)) == 1


async def test_a_long_video_telegram_already_has_is_still_asked_about_in_a_group(world: World) -> None:
    world.downloader.serve(URL, video(URL, duration=None))
    world.downloader.content["v1"] = b"long video bytes"
    await world.post(URL)  # a private chat never asks
    await world.idle()
    record = await world.store.blob("testsite:v1:18")
    assert record is not None
    assert record.file_id is not None
    await world.store.put_blob(replace(record, duration=3000.0))  # what ffprobe measured
    await world.post(URL, chat_id=GROUP_CHAT)
    await world.idle()
    [prompt] = world.messenger.chat(GROUP_CHAT)
    assert prompt.text == "This video is pretty long (50m), download it anyway?"


async def test_a_video_that_went_out_before_a_crash_is_not_sent_again(world: World) -> None:
    """The attempt after the crash finds the job's record that Telegram took the video (written
    the moment it answered) and finishes the job: its log message ends on ✅, nothing is resent."""
    world.downloader.serve(URL)
    request = DownloadRequest(URL, PRIVATE_CHAT, "private", 41, USER, delivered=True)
    await world.engine.submit(DOWNLOAD_VIDEO, request.to_payload())
    await world.idle()

    assert "send_video" not in world.messenger.calls
    assert world.downloader.scrapes == []
    assert await world.store.list_jobs() == []
    assert await world.store.list_failed() == []
    [log] = world.messenger.chat(PRIVATE_CHAT)
    assert "✅" in (log.text or "")


async def test_the_record_that_the_video_went_out_is_kept_the_moment_it_did(world: World) -> None:
    saved: list[dict[str, object]] = []

    async def save(payload: dict[str, object]) -> None:
        saved.append(dict(payload))

    request = DownloadRequest(URL, PRIVATE_CHAT, "private", 41, USER)
    now = world.clock.now()
    context = JobContext(Job(7, DOWNLOAD_VIDEO, request.to_payload(), 1, 3, now, now), save, world.engine)
    reports = ChatReports(
        logs=world.container.log_views(),
        languages=world.container.languages(),
        upload_limit_bytes=50 * 1024 * 1024,
    )
    report = reports.for_attempt(request, context)

    await report.sent(1000)

    assert saved[-1]["delivered"] is True
    assert report.delivered
