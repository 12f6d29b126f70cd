"""Every text a user sees, in one catalog: the bot's words are here and nowhere else.

This module is the catalog in English: each entry is a whole message with named `{placeholders}`
(what a translation replaces as one piece), and its English text is its gettext message id.
`translations/<code>.po` hold the other languages (a test fails when one lacks an entry, or
differs from it in placeholders or HTML tags). `words.Words` fills the entries in, in the
reader's language; `phrase.Phrase` is an entry kept with its values, to be said later to whoever
reads it (a failure's reason); `reasons` builds those; `languages` says which language a chat
reads. Anything that came from outside (titles, URLs, yt-dlp's words) is HTML-escaped where it
is filled in, because every message is sent with HTML parse mode; what yt-dlp or Telegram said
is quoted as it said it: it is theirs, not ours.
"""

from __future__ import annotations

HELP = (
    "Send me a link to a video and I will send the video back, playable right here.\n\n"
    "• Works in private chats and in groups (add me to a group; I only post the videos).\n"
    "• <code>/audio &lt;url&gt;</code> sends the sound only; <code>/video &lt;url&gt;</code> the video.\n"
    "• <code>/settings</code>: the quality, the sound only by default, the language, and in groups "
    "long videos.\n"
    "• Inline: type <code>@{bot} &lt;url&gt;</code> in any chat."
)
HELP_BOT_NAME = "bot"
"""What /help calls the bot when Telegram did not say its username."""
COMMAND_USAGE = "Usage: <code>/{command} &lt;url&gt;</code>"

# The command menus (setMyCommands): plain text, no HTML, at most 256 characters
COMMAND_DESCRIPTIONS = {
    "help": "What I do, and how to ask",
    "audio": "The sound of a link: /audio <url>",
    "video": "The video of a link: /video <url>",
    "settings": "This chat's quality and choices",
    "id": "Your user id and this chat's id",
    "status": "The queue, failures and yt-dlp (admins)",
    "verbose": "A link with yt-dlp's full output (admins)",
}

# A link's way, in its log message
QUEUED = "⏳ <b>Queued</b> — {ahead} ahead of you"
SCRAPING = "🧐 <b>Scraping</b> URL..."
VIDEO_INFO = "\n🎬 <b>Video info:</b>\n{lines}"
INFO_URL = "<b>URL:</b> {url}"
INFO_TITLE = "<b>Title:</b> {title}"
INFO_DURATION = "<b>Duration:</b> {seconds} sec"
INFO_SIZE = "<b>Size:</b> {size}"
INFO_RESOLUTION = "<b>Resolution:</b> {width}x{height}"
INFO_VIDEO_CODEC = "<b>Video codec:</b> {codec}{rate}"
INFO_RATE = " @ {kbps} kbps"
INFO_AUDIO_CODEC = "<b>Audio codec:</b> {codec}"
DOWNLOADING = "\n⬇️ <b>Downloading...</b>"
CONVERTING = "\n🎞 <b>Converting…</b>"
COMPRESSING = "\n📦 <b>Compressing to fit {limit}…</b>"
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

# Sizes and durations
MEGABYTES = "{number} MB"
DURATION_HOURS_MINUTES = "{hours}h {minutes}m"
DURATION_HOURS = "{hours}h"
DURATION_MINUTES = "{minutes}m"
DURATION_SECONDS = "{seconds}s"

# A video past the upload limit, sent as an album of parts: each part's caption
PART_CAPTION = "Part {index}/{count}"

# Answers to the user's message
TOO_LARGE = "😞 Video too large ({size})"
TOO_MANY_PARTS = "😞 Video too large ({size}): it would take more than {max_parts} parts"
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
SETTINGS_LANGUAGE = "Language: <b>{language}</b>"
SETTINGS_NOT_ADMIN = "Only the group's administrators can change its settings."
SETTINGS_CLOSED = "⚙️ Settings saved. Send /settings to change them again."
SETTINGS_SAVED = "Saved."
ANSWER_QUALITY = "Quality: {quality}"
ANSWER_AUDIO = "Audio only: {state}"
ANSWER_LONG_VIDEOS = "Long videos: {asking}"
ANSWER_LANGUAGE = "Language: {language}"
QUALITY_BEST_THAT_FITS = "best that fits"
QUALITY_UP_TO = "up to {height}p"
QUALITY_BUTTON_BEST = "Best"
QUALITY_BUTTON = "{height}p"
LONG_VIDEOS_SENT = "sent without asking"
LONG_VIDEOS_ASK = "ask first when longer than {duration}"
LANGUAGE_AUTOMATIC = "your Telegram app's ({language})"
BUTTON_LANGUAGE_AUTOMATIC = "🌐 Automatic"
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
ON = "on"
OFF = "off"

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
TELEGRAM_UNREACHABLE_FOR = "Telegram could not be reached for {duration}: {description}"
BAD_PAYLOAD = "bad job payload: {error}"
TIMED_OUT = "Timed out after {seconds} seconds"
INTERNAL_ERROR = "internal error: {error}"
YTDLP_KILLED = "yt-dlp was killed with signal {signal}"
YTDLP_EXITED = "yt-dlp exited with code {code}"
UNKNOWN_ERROR = "unknown error"
GAVE_UP = "gave up after {attempts} attempts: the process died while running it"

# Why a link is refused before it is queued (the SSRF guard)
URL_UNPRINTABLE = "URL contains spaces or control characters"
URL_MALFORMED = "malformed URL"
URL_SCHEME = "scheme '{scheme}' is not allowed"
URL_NO_SCHEME = "(none)"
URL_NO_HOST = "URL has no host"
URL_UNRESOLVED = "host does not resolve"
URL_PRIVATE = "the link leads to a private address ({address})"
