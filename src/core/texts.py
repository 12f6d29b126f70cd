"""Every text a user sees, in one catalog: the bot's words are here and nowhere else.

The catalog's entries are whole messages with named `{placeholders}` (what a translation
replaces as one piece); the functions below them fill them in, so a caller never glues words
together. Anything that came from outside (titles, URLs, yt-dlp's words) is HTML-escaped here,
because every message is sent with HTML parse mode. What yt-dlp or Telegram said is quoted as it
said it: it is theirs, not ours.
"""

from __future__ import annotations

import html
import math
import time
from collections.abc import Sequence

from core.durations import clock_duration, short_duration
from ports.media import Progress, Stage, VideoInfo

# The catalog -------------------------------------------------------------------------------

HELP = (
    "Send me a link to a video and I will send the video back, playable right here.\n\n"
    "• Works in private chats and in groups (add me to a group; I only post the videos).\n"
    "• <code>/audio &lt;url&gt;</code> sends the sound only; <code>/video &lt;url&gt;</code> the video.\n"
    "• <code>/settings</code>: the quality, the sound only by default, and in groups long videos.\n"
    "• Inline: type <code>@{bot} &lt;url&gt;</code> in any chat."
)
HELP_BOT_NAME = "bot"
"""What /help calls the bot when Telegram did not say its username."""
COMMAND_USAGE = "Usage: <code>/{command} &lt;url&gt;</code>"

# A link's way, in its log message
QUEUED = "⏳ <b>Queued</b> — {ahead} ahead of you"
SCRAPING = "🧐 <b>Scraping</b> URL..."
VIDEO_INFO = "\n🎬 <b>Video info:</b>\n{lines}"
INFO_URL = "<b>URL:</b> {url}"
INFO_TITLE = "<b>Title:</b> {title}"
INFO_DURATION = "<b>Duration:</b> {seconds:.0f} sec"
INFO_SIZE = "<b>Size:</b> {size}"
INFO_RESOLUTION = "<b>Resolution:</b> {width}x{height}"
INFO_VIDEO_CODEC = "<b>Video codec:</b> {codec}{rate}"
INFO_RATE = " @ {kbps:.0f} kbps"
INFO_AUDIO_CODEC = "<b>Audio codec:</b> {codec}"
DOWNLOADING = "\n⬇️ <b>Downloading...</b>"
CONVERTING = "\n🎞 <b>Converting…</b>"
COMPRESSING = "\n📦 <b>Compressing to fit {limit_mib:.0f} MB…</b>"
UPLOADING = "\n🚀 <b>Uploading ({size})...</b>"
SENT = "✅ <b>Sent</b>"
CANCELLED = "🚫 <b>Cancelled</b>"
SENT_SIZED = "✅ <b>Sent</b> ({size})"
RETRYING = "\n⚠️ <b>Download failed</b>, retrying (attempt {attempt} of {max_attempts})..."
FAILED = "\n💥 <b>Download failed</b>: {reason}"
FANNED_OUT = "\n📦 {count} videos found, sending each one."
OUTPUT_CHUNK = "\n<code>{text}</code>"
SPEED = "{size}/s"
ETA = "ETA {eta}"

# A video past the upload limit, sent as an album of parts: each part's caption
PART_CAPTION = "Part {index}/{count}"

# Answers to the user's message
TOO_LARGE = "😞 Video too large ({megabytes:.0f} MB)"
TOO_MANY_PARTS = "😞 Video too large ({megabytes:.0f} MB): it would take more than {max_parts} parts"
MORE_THAN_TEN = "📚 More than 10 videos here"
REFUSED_URL = "🚫 I can't fetch {url}: {why}"
QUEUE_FULL = "✋ You already have {limit} links in the queue. Please wait until some are done."
LINK_LIMIT_HOUR = "✋ You can send {limit} links an hour. You can send more in {wait} (at {at} UTC)."
LINK_LIMIT_DAY = "✋ You can send {limit} links a day. You can send more in {wait} (at {at} UTC)."
SEND_AGAIN_LATER = (
    "⏳ I could not take this link just now: my storage is busy. Please send it again in a few minutes."
)
# Why a site would not give the bot a video (the 💥 line's reason), by the site's verdict
SITE_VERDICTS = {
    "bot_check": "the site took the bot for a robot and would not give it this video",
    "sign_in": "only signed-in users may watch this video",
    "age_gate": "this video is age-restricted: only signed-in adults may watch it",
    "geo_blocked": "this video is not available in the bot's country",
    "private": "this video is private",
    "removed": "this video was removed",
    "members_only": "this video is for the channel's members only",
}
SITE_VERDICT_OTHER = "the site would not give the bot this video"
FAILURE_REACTION = "😢"
BUSY_REACTION = "😴"
"""A group's link the store could not take for now: asleep, send it again later."""

# A long video's prompt in a group, and the presses on it
LONG_VIDEO_PROMPT = "This video is pretty long ({duration}), download it anyway?"
LONG_VIDEO_YES = "👍 Yes please"
LONG_VIDEO_NO = "👎 No thanks"
PRESS_CONFIRMED = "👍 On it!"
PRESS_CANCELLED = "👎 Cancelled."
PRESS_NOT_REQUESTER = "Only the person who sent the link can cancel."
CANCEL_HOW = (
    "Reply <code>/cancel</code> to your link (or to my message about it), or send <code>/cancel all</code>."
)
CANCEL_NOTHING = "Nothing to cancel: that link is done, or it is not waiting here."
CANCEL_NOT_YOURS = "Only the person who sent the link, or an admin of this group, can cancel it."
CANCEL_DONE = "🚫 Cancelled."
BUTTON_CANCEL = "🚫 Cancel"
CANCEL_ALL_DONE = "🚫 Cancelled {count} of your links."
PROMPT_CONFIRMED = "👍 Downloading it."
PROMPT_CANCELLED = "👎 Cancelled."
NO_LONGER_AVAILABLE = "This request is no longer available."
BUTTON_NOT_VALID = "This button is no longer valid."

# Inline mode
SOURCE_BUTTON = "🔗 Source"
INLINE_VIDEO_TITLE = "Send this video"
INLINE_VARIANT_TITLES = {
    "full": "{title}",
    "no_caption": "{title} (no caption)",
    "no_source": "{title} (no source link)",
}
INLINE_AUDIO_TITLE = "🎵 Audio only"
INLINE_FETCHING = "⏳ Fetching {url}…"
INLINE_FETCHING_SOUND = "⏳ Fetching the sound of {url}…"

# /settings
SETTINGS_TITLE = "⚙️ <b>Settings for this chat</b>"
SETTINGS_QUALITY = "Quality: <b>{quality}</b>"
SETTINGS_AUDIO = "Audio only: <b>{state}</b>"
SETTINGS_AUDIO_ON_HINT = " (links come back as their sound; /video for a video)"
SETTINGS_LONG_VIDEOS = "Long videos: <b>{asking}</b>"
SETTINGS_NOT_ADMIN = "Only the group's administrators can change its settings."
SETTINGS_CLOSED = "⚙️ Settings saved. Send /settings to change them again."
SETTINGS_SAVED = "Saved."
ANSWER_QUALITY = "Quality: {quality}"
ANSWER_AUDIO = "Audio only: {state}"
ANSWER_LONG_VIDEOS = "Long videos: {asking}"
QUALITY_BEST_THAT_FITS = "best that fits"
QUALITY_UP_TO = "up to {height}p"
QUALITY_BUTTON_BEST = "Best"
QUALITY_BUTTON = "{height}p"
LONG_VIDEOS_SENT = "sent without asking"
LONG_VIDEOS_ASK = "ask first when longer than {duration}"
BUTTON_AUDIO_ONLY = "🎵 Audio only"
BUTTON_ASK_LONG = "⏱ Ask before long videos"
BUTTON_DONE = "✔️ Done"
# /settings: "send as file"
SETTINGS_AS_FILE = "Send as file: <b>{state}</b>"
SETTINGS_AS_FILE_ON_HINT = " (videos come as documents: the original bytes, no player)"
ANSWER_AS_FILE = "Send as file: {state}"
BUTTON_AS_FILE = "📄 Send as file"
BUTTON_TOGGLE = "{label}: {state}"
BUTTON_SELECTED = "✅ {label}"
ON, OFF = "on", "off"

# /status and /id (the operator's), a chat off the allowlist (answered once an hour)
IDS = "<b>Your user id:</b> <code>{user_id}</code>\n<b>This chat's id:</b> <code>{chat_id}</code>"
NOT_ALLOWED = "🙏 Sorry, I serve only allowed chats. Ask my operator to add this one: <code>{chat_id}</code>"
STATUS_LINE = "<b>{label}:</b> {value}"
STATUS_QUEUE = "Queue"
STATUS_IN_FLIGHT = "In flight"
STATUS_FAILED = "Failed"
STATUS_YTDLP = "yt-dlp"
STATUS_LAST_CHECK = "Last update check"
STATUS_UNKNOWN = "unknown"
UPDATE_NEVER = "never"
UPDATE_CHECKED = "{when} (ok)"
UPDATE_CHECK_FAILED = "{when} (failed: {error})"

# Why a job failed, as its 💥 line says it
NO_VIDEO = "No video found at this link"
REFUSED = "refused: {why}"
VANISHED = "the downloaded file vanished before the upload"
TELEGRAM_REFUSED = "Telegram refused the video: {description}"
TELEGRAM_UNREACHABLE_FOR = "Telegram could not be reached for {hours:g} h: {description}"
BAD_PAYLOAD = "bad job payload: {error}"
TIMED_OUT = "Timed out after {seconds:g} seconds"
INTERNAL_ERROR = "internal error: {error}"
YTDLP_KILLED = "yt-dlp was killed with signal {signal}"
YTDLP_EXITED = "yt-dlp exited with code {code}"
UNKNOWN_ERROR = "unknown error"

# Why a link is refused before it is queued (the SSRF guard)
URL_UNPRINTABLE = "URL contains spaces or control characters"
URL_MALFORMED = "malformed URL"
URL_SCHEME = "scheme {scheme!r} is not allowed"
URL_NO_SCHEME = "(none)"
URL_NO_HOST = "URL has no host"
URL_UNRESOLVED = "host does not resolve"
URL_PRIVATE = "the link leads to a private address ({address})"

# Filling the catalog in -------------------------------------------------------------------

MB = 1_000_000
_BAR_CELLS = 10


def escape(text: str) -> str:
    return html.escape(text, quote=False)


def megabytes(size: int | float) -> str:
    return f"{size / MB:.2f} MB"


def help_text(bot_username: str | None) -> str:
    return HELP.format(bot=bot_username or HELP_BOT_NAME)


def command_usage(command: str) -> str:
    return COMMAND_USAGE.format(command=command)


def verbose_usage() -> str:
    return command_usage("verbose")


def queued(ahead: int) -> str:
    return QUEUED.format(ahead=ahead)


def scraping() -> str:
    return SCRAPING


def video_info(info: VideoInfo) -> str:
    lines = [INFO_URL.format(url=escape(info.webpage_url)), INFO_TITLE.format(title=escape(info.title))]
    if info.duration is not None:
        lines.append(INFO_DURATION.format(seconds=info.duration))
    if info.filesize is not None:
        lines.append(INFO_SIZE.format(size=megabytes(info.filesize)))
    if info.width and info.height:
        lines.append(INFO_RESOLUTION.format(width=info.width, height=info.height))
    if info.vcodec and info.vcodec != "none":
        rate = INFO_RATE.format(kbps=info.tbr) if info.tbr else ""
        lines.append(INFO_VIDEO_CODEC.format(codec=escape(info.vcodec), rate=rate))
    if info.acodec and info.acodec != "none":
        lines.append(INFO_AUDIO_CODEC.format(codec=escape(info.acodec)))
    return VIDEO_INFO.format(lines="\n".join(lines))


def downloading() -> str:
    return DOWNLOADING


def converting() -> str:
    return CONVERTING


def compressing(limit_bytes: int) -> str:
    # Telegram's limits are binary megabytes (50 MB = 50 x 1024 x 1024 bytes): named as it names them.
    return COMPRESSING.format(limit_mib=limit_bytes / 1024 / 1024)


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
        parts.append(SPEED.format(size=megabytes(progress.speed_bytes)))
    if progress.eta_seconds is not None:
        parts.append(ETA.format(eta=clock_duration(progress.eta_seconds)))
    return " · ".join(parts)


def progress_bar(percent: float | None) -> str:
    share = min(max(percent or 0.0, 0.0), 100.0)
    filled = round(share / 100 * _BAR_CELLS)
    return f"[{'█' * filled}{'░' * (_BAR_CELLS - filled)}] {share:.1f}%"


def uploading(size: int) -> str:
    return UPLOADING.format(size=megabytes(size))


def sent(size: int | None) -> str:
    return SENT_SIZED.format(size=megabytes(size)) if size else SENT


def retrying(next_attempt: int, max_attempts: int) -> str:
    return RETRYING.format(attempt=next_attempt, max_attempts=max_attempts)


def failed(reason: str) -> str:
    return FAILED.format(reason=escape(reason))


def fanned_out(count: int) -> str:
    return FANNED_OUT.format(count=count)


def site_verdict(verdict: str) -> str:
    """Why a site would not give the bot a video, for the user (the 💥 line's reason)."""
    return SITE_VERDICTS.get(verdict, SITE_VERDICT_OTHER)


def output_chunk(text: str) -> str:
    return OUTPUT_CHUNK.format(text=escape(text.rstrip()))


def part_caption(index: int, count: int) -> str:
    return PART_CAPTION.format(index=index, count=count)


def too_large(size: int) -> str:
    return TOO_LARGE.format(megabytes=size / MB)


def too_many_parts(size: int, max_parts: int) -> str:
    """Refused because it would take more parts than the operator allows."""
    return TOO_MANY_PARTS.format(megabytes=size / MB, max_parts=max_parts)


def refused_url(url: str, why: str) -> str:
    return REFUSED_URL.format(url=escape(url), why=escape(why))


def queue_full(limit: int) -> str:
    return QUEUE_FULL.format(limit=limit)


def link_limit(limit: int, window_seconds: float, wait_seconds: float, until: float) -> str:
    """When the user may send again: how long from now, and the moment (UTC), both to the
    minute, rounded up (never a moment that is still too early)."""
    entry = LINK_LIMIT_HOUR if window_seconds <= 3600 else LINK_LIMIT_DAY
    at = time.strftime("%H:%M", time.gmtime(math.ceil(until / 60) * 60))
    return entry.format(limit=limit, wait=short_duration(math.ceil(wait_seconds / 60) * 60), at=at)


def cancelled_all(count: int) -> str:
    return CANCEL_ALL_DONE.format(count=count)


def send_again_later() -> str:
    return SEND_AGAIN_LATER


def long_video_prompt(duration: float) -> str:
    return LONG_VIDEO_PROMPT.format(duration=short_duration(duration))


def variant_title(title: str, variant: str) -> str:
    return INLINE_VARIANT_TITLES[variant].format(title=title)


def variant_caption(info: VideoInfo, variant: str) -> str | None:
    """An inline result's caption: the variant "no_caption" has none."""
    return None if variant == "no_caption" else caption_for(info)


def inline_fetching(url: str, *, sound: bool = False) -> str:
    return (INLINE_FETCHING_SOUND if sound else INLINE_FETCHING).format(url=escape(url))


def on_off(on: bool) -> str:
    return ON if on else OFF


def settings_as_file(on: bool) -> str:
    return SETTINGS_AS_FILE.format(state=on_off(on)) + (SETTINGS_AS_FILE_ON_HINT if on else "")


def quality_name(height: int | None) -> str:
    return QUALITY_BEST_THAT_FITS if height is None else QUALITY_UP_TO.format(height=height)


def long_videos(threshold: float | None) -> str:
    """How a group's long videos go: never asked about, or from what length."""
    if threshold is None:
        return LONG_VIDEOS_SENT
    return LONG_VIDEOS_ASK.format(duration=short_duration(threshold))


def status(lines: Sequence[tuple[str, object]]) -> str:
    return "\n".join(STATUS_LINE.format(label=escape(k), value=escape(str(v))) for k, v in lines)


def last_update_check(checked_at: float | None, error: str | None) -> str:
    if checked_at is None:
        return UPDATE_NEVER
    when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(checked_at))
    return UPDATE_CHECK_FAILED.format(when=when, error=error) if error else UPDATE_CHECKED.format(when=when)


def caption_for(info: VideoInfo) -> str:
    """The title, or the playlist title / description where the title is only the id."""
    title = info.title.strip()
    if title and title != info.id and title.rsplit(".", 1)[0] != info.id:
        return title
    for alternative in (info.playlist_title, info.description):
        if alternative and alternative.strip():
            return alternative.strip()
    return title
