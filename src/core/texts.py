"""Every text a user sees, and the log lines' wording.

Anything that came from outside (titles, URLs, yt-dlp's words) is HTML-escaped here, because
every message is sent with HTML parse mode.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from ports.media import Progress, Stage, VideoInfo

MB = 1_000_000
LONG_VIDEO_YES = "👍 Yes please"
LONG_VIDEO_NO = "👎 No thanks"
NO_LONGER_AVAILABLE = "This request is no longer available."
BUTTON_NOT_VALID = "This button is no longer valid."
MORE_THAN_TEN = "📚 More than 10 videos here"
FAILURE_REACTION = "😢"
BUSY_REACTION = "😴"
"""A group's link the store could not take for now: asleep, send it again later."""
_BAR_CELLS = 10

HELP = (
    "Send me a link to a video and I will send the video back, playable right here.\n\n"
    "• Works in private chats and in groups (add me to a group; I only post the videos).\n"
    "• <code>/audio &lt;url&gt;</code> sends the sound only; <code>/video &lt;url&gt;</code> the video.\n"
    "• <code>/settings</code>: the quality, the sound only by default, and in groups long videos.\n"
    "• Inline: type <code>@{bot} &lt;url&gt;</code> in any chat."
)


def escape(text: str) -> str:
    return html.escape(text, quote=False)


def megabytes(size: int | float) -> str:
    return f"{size / MB:.2f} MB"


def queued(ahead: int) -> str:
    return f"⏳ <b>Queued</b> — {ahead} ahead of you"


def scraping() -> str:
    return "🧐 <b>Scraping</b> URL..."


def video_info(info: VideoInfo) -> str:
    lines = [f"<b>URL:</b> {escape(info.webpage_url)}", f"<b>Title:</b> {escape(info.title)}"]
    if info.duration is not None:
        lines.append(f"<b>Duration:</b> {info.duration:.0f} sec")
    if info.filesize is not None:
        lines.append(f"<b>Size:</b> {megabytes(info.filesize)}")
    if info.width and info.height:
        lines.append(f"<b>Resolution:</b> {info.width}x{info.height}")
    if info.vcodec and info.vcodec != "none":
        rate = f" @ {info.tbr:.0f} kbps" if info.tbr else ""
        lines.append(f"<b>Video codec:</b> {escape(info.vcodec)}{rate}")
    if info.acodec and info.acodec != "none":
        lines.append(f"<b>Audio codec:</b> {escape(info.acodec)}")
    return "\n🎬 <b>Video info:</b>\n" + "\n".join(lines)


def downloading() -> str:
    return "\n⬇️ <b>Downloading...</b>"


def converting() -> str:
    return "\n🎞 <b>Converting…</b>"


def compressing(limit_bytes: int) -> str:
    # Telegram's limits are binary megabytes (50 MB = 50 x 1024 x 1024 bytes): named as it names them.
    return f"\n📦 <b>Compressing to fit {limit_bytes / 1024 / 1024:.0f} MB…</b>"


def stage_line(progress: Progress, upload_limit_bytes: int) -> str | None:
    """The lasting line that opens a stage after the download; None for the download itself."""
    match progress.stage:
        case Stage.CONVERT:
            return converting()
        case Stage.COMPRESS:
            return compressing(upload_limit_bytes)
        case Stage.DOWNLOAD:
            return None


def progress_line(progress: Progress) -> str:
    parts = [progress_bar(progress.percent)]
    if progress.speed_bytes:
        parts.append(f"{megabytes(progress.speed_bytes)}/s")
    if progress.eta_seconds is not None:
        parts.append(f"ETA {clock_duration(progress.eta_seconds)}")
    return " · ".join(parts)


def progress_bar(percent: float | None) -> str:
    share = min(max(percent or 0.0, 0.0), 100.0)
    filled = round(share / 100 * _BAR_CELLS)
    return f"[{'█' * filled}{'░' * (_BAR_CELLS - filled)}] {share:.1f}%"


def uploading(size: int) -> str:
    return f"\n🚀 <b>Uploading ({megabytes(size)})...</b>"


def sent(size: int | None) -> str:
    return f"✅ <b>Sent</b> ({megabytes(size)})" if size else "✅ <b>Sent</b>"


def retrying(next_attempt: int, max_attempts: int) -> str:
    return f"\n⚠️ <b>Download failed</b>, retrying (attempt {next_attempt} of {max_attempts})..."


def failed(reason: str) -> str:
    return f"\n💥 <b>Download failed</b>: {escape(reason)}"


def too_large(size: int) -> str:
    return f"😞 Video too large ({size / MB:.0f} MB)"


def long_video_prompt(duration: float) -> str:
    return f"This video is pretty long ({short_duration(duration)}), download it anyway?"


def refused_url(url: str, why: str) -> str:
    return f"🚫 I can't fetch {escape(url)}: {escape(why)}"


def queue_full(limit: int) -> str:
    return f"✋ You already have {limit} links in the queue. Please wait until some are done."


def verbose_usage() -> str:
    return command_usage("verbose")


def command_usage(command: str) -> str:
    return f"Usage: <code>/{command} &lt;url&gt;</code>"


def status(lines: Sequence[tuple[str, object]]) -> str:
    return "\n".join(f"<b>{escape(k)}:</b> {escape(str(v))}" for k, v in lines)


def output_chunk(text: str) -> str:
    return f"\n<code>{escape(text.rstrip())}</code>"


def short_duration(seconds: float) -> str:
    total = max(int(seconds), 0)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes}m" if minutes else f"{hours}h"
    if minutes:
        return f"{minutes}m"
    return f"{secs}s"


def clock_duration(seconds: float) -> str:
    total = max(int(seconds), 0)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def caption_for(info: VideoInfo) -> str:
    """The title, or the playlist title / description where the title is only the id."""
    title = info.title.strip()
    if title and title != info.id and title.rsplit(".", 1)[0] != info.id:
        return title
    for alternative in (info.playlist_title, info.description):
        if alternative and alternative.strip():
            return alternative.strip()
    return title


def send_again_later() -> str:
    return (
        "⏳ I could not take this link just now: my storage is busy. Please send it again in a few minutes."
    )


COMMAND_DESCRIPTIONS = {
    "help": "What I do, and how to ask",
    "audio": "The sound of a link: /audio <url>",
    "video": "The video of a link: /video <url>",
    "settings": "This chat's quality and choices",
    "id": "Your user id and this chat's id",
    "status": "The queue, failures and yt-dlp (admins)",
    "verbose": "A link with yt-dlp's full output (admins)",
}
"""The command menus' lines (setMyCommands): at most 256 characters each, plain text."""


def your_ids(user_id: int | None, chat_id: int, chat_type: str) -> str:
    """/id: what the operator's allowlist and admin settings ask for."""
    lines = [f"<b>Your user id:</b> <code>{user_id}</code>"] if user_id is not None else []
    where = "this chat" if chat_type == "private" else f"this {escape(chat_type)}"
    lines.append(f"<b>The id of {where}:</b> <code>{chat_id}</code>")
    return "\n".join(lines)


def not_allowed_here(chat_id: int) -> str:
    """The polite answer in a chat off VIDRELAY_ALLOWED_CHAT_IDS (at most once an hour)."""
    return (
        "🙏 Sorry, I only work in the chats my operator has allowed, and this is not one of them yet. "
        f"If you know the operator, give them this chat's id: <code>{chat_id}</code>"
    )
