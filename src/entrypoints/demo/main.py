"""`vidrelay demo`: the whole pipeline offline, as a newcomer's first run.

A fake Bot API and a local video site start on 127.0.0.1; the real bot (`vidrelay run`, real
yt-dlp, a temporary SQLite store) runs against them as a child process; a short scripted
conversation is played and printed as a transcript with timings. No token, no network.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from testkit.bot_process import BotProcess, bot_environment
from testkit.telegram import Chat, FakeBotApi, StoredMessage, User, VideoRecord
from testkit.video_site import Body, FailThen, Redirect, VideoServer

STEP_TIMEOUT_SECONDS = 45.0
ALICE = User(1001, "Alice", username="alice")
BOB = User(1002, "Bob", username="bob")
GROUP = Chat.supergroup(-100123, "Film club")


class Transcript:
    def __init__(self, out: Callable[[str], None]) -> None:
        self._out = out
        self._t0 = time.monotonic()

    def line(self, text: str) -> None:
        self._out(f"[{time.monotonic() - self._t0:6.2f}s] {text}")

    def heading(self, text: str) -> None:
        self._out(f"\n── {text}")


def run_demo() -> int:
    try:
        return asyncio.run(_demo(print))
    except KeyboardInterrupt:
        return 130


async def _demo(out: Callable[[str], None]) -> int:
    transcript = Transcript(out)
    out("vidrelay demo — a fake Telegram, a local video site and the real yt-dlp, all on 127.0.0.1\n")
    with tempfile.TemporaryDirectory(prefix="vidrelay-demo-") as tmp:
        root = Path(tmp)
        clips = _clips_cache(fallback=root / "clips")
        async with VideoServer(clips) as site, VideoServer(clips) as internal, FakeBotApi() as api:
            site.set_route("/flaky.mp4", FailThen(503, 1, Body(site.clip("short").read_bytes(), "video/mp4")))
            site.set_route("/pages/sneaky.html", Redirect(internal.url("/clips/short.mp4")))
            # The SSRF guard stays on: only the video site's port passes (VIDRELAY_PRIVATE_URL_ALLOWLIST).
            bot = BotProcess(bot_environment(api, root / "data", sites=[site]), root / "bot.log")
            transcript.line("starting the bot (vidrelay run) on a fresh SQLite store…")
            await bot.start(api)
            transcript.line(
                f"the bot is polling the fake Bot API; its SSRF guard lets only {site.base_url} through"
            )
            try:
                outcomes = await _script(api, site, transcript)
                outcomes.append(await _guarded(api, site, internal, transcript))
            finally:
                code = await bot.terminate()
                transcript.heading("stop")
                transcript.line(f"SIGTERM → the bot stopped gracefully, exit code {code}")
            passed = sum(outcomes)
            out(f"\n{passed} of {len(outcomes)} steps did what they should.")
            return 0 if passed == len(outcomes) and code == 0 else 1


def _clips_cache(fallback: Path) -> Path:
    """Clips made once per machine, or once per run where the home folder cannot keep them (a
    container run as an arbitrary uid has HOME=/, which it cannot write)."""
    cache = Path.home() / ".cache" / "vidrelay" / "clips"
    with contextlib.suppress(OSError):
        cache.mkdir(parents=True, exist_ok=True)
    if os.access(cache, os.W_OK | os.X_OK):
        return cache
    fallback.mkdir()
    return fallback


async def _script(api: FakeBotApi, site: VideoServer, t: Transcript) -> list[bool]:
    private = Chat.private(ALICE)
    clip = site.url("/clips/short.mp4")
    expected = hashlib.sha256(site.clip("short").read_bytes()).hexdigest()
    outcomes = []

    t.heading("1. A private link becomes the video")
    outcomes.append(await _private_link(api, t, private, clip, expected))

    t.heading("2. The same link again: served from Telegram's cache by file_id")
    before = site.hits("/clips/short.mp4")
    ok = await _private_link(api, t, private, clip, expected, show_log=False)
    fresh = site.hits("/clips/short.mp4") - before
    t.line(f"   the video site saw {fresh} new request(s) for the clip")
    outcomes.append(ok and fresh == 0 and api.videos(private.id)[-1].source == "file_id")

    t.heading("3. A flaky site (503 once): retried in the same message, then delivered")
    outcomes.append(await _private_link(api, t, private, site.url("/flaky.mp4"), expected))

    t.heading("4. A page without a video: one clear failure, no retries")
    message_id = _say(api, t, private, ALICE, site.url("/pages/no-video.html"))
    log = await _log_reply(api, private.id, message_id, lambda m: "💥" in (m.text or ""))
    _show_log(t, log)
    outcomes.append(log is not None and "⚠️" not in (log.text or ""))

    t.heading("5. A group: only the video, no progress messages")
    group_message = _say(api, t, GROUP, BOB, site.url("/pages/video.html"))
    video = await _video_reply(api, GROUP.id, group_message)
    texts = [m for m in api.messages(GROUP.id) if m.video is None]
    if video is not None:
        t.line(f"🤖 video ({video.size / 1000:.0f} kB, {video.duration}s, {video.width}x{video.height})")
    t.line(f"   progress messages in the group: {len(texts)}")
    outcomes.append(video is not None and not texts)
    return outcomes


async def _guarded(api: FakeBotApi, site: VideoServer, internal: VideoServer, t: Transcript) -> bool:
    t.heading("6. A page that redirects to an internal address: refused, nothing reaches it")
    private = Chat.private(ALICE)
    message_id = _say(api, t, private, ALICE, site.url("/pages/sneaky.html"))
    log = await _log_reply(api, private.id, message_id, lambda m: "💥" in (m.text or ""))
    _show_log(t, log)
    t.line(f"   the internal server ({internal.base_url}) saw {len(internal.requests)} request(s)")
    return log is not None and "refused" in (log.text or "") and not internal.requests


def _say(api: FakeBotApi, t: Transcript, chat: Chat, user: User, text: str) -> int:
    t.line(f"👤 {user.first_name}: {text}")
    return api.send_text(chat, user, text)


async def _private_link(
    api: FakeBotApi, t: Transcript, chat: Chat, url: str, expected_sha: str, *, show_log: bool = True
) -> bool:
    message_id = _say(api, t, chat, ALICE, url)
    video = await _video_reply(api, chat.id, message_id)
    log = next((m for m in api.messages(chat.id) if m.reply_to == message_id and m.video is None), None)
    if show_log:
        _show_log(t, log)
    if video is None:
        return False
    same = video.sha256 == expected_sha
    t.line(
        f"🤖 video ({video.size / 1000:.0f} kB, {video.duration}s) via {video.source}; bytes match: {same}"
    )
    return same


def _show_log(t: Transcript, log: StoredMessage | None) -> None:
    if log is None:
        t.line("🤖 (no log message)")
        return
    t.line(f"🤖 log message, edited {log.edits} time(s); it now reads:")
    for line in (log.text or "").splitlines():
        if line.strip():
            t.line(f"     {line}")


async def _video_reply(api: FakeBotApi, chat_id: int, message_id: int) -> VideoRecord | None:
    try:
        return await api.wait_for(
            lambda: next((v for v in api.videos(chat_id) if v.reply_to == message_id), None),
            timeout=STEP_TIMEOUT_SECONDS,
        )
    except TimeoutError:
        return None


async def _log_reply(
    api: FakeBotApi, chat_id: int, message_id: int, done: Callable[[StoredMessage], bool]
) -> StoredMessage | None:
    def finished() -> StoredMessage | None:
        return next((m for m in api.messages(chat_id) if m.reply_to == message_id and done(m)), None)

    try:
        return await api.wait_for(finished, timeout=STEP_TIMEOUT_SECONDS)
    except TimeoutError:
        return None


if __name__ == "__main__":
    sys.exit(run_demo())
