"""The catalog filled in, in one reader's language: every message a chat gets is made here.

`Words(language)` says an entry (`say`), a phrase decided earlier (`reason`), and the messages
that take more than one entry (the video info, a progress line). Numbers and sizes are written
as the language writes them; durations with its units.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

from core import texts
from core.durations import clock_duration
from core.texts.phrase import Phrase
from core.texts.reasons import MB, minute_after, short_duration
from ports.language import Language, Languages
from ports.media import Progress, Stage, VideoInfo

_BAR_CELLS = 10


def escape(text: str) -> str:
    return html.escape(text, quote=False)


class Words:
    def __init__(self, language: Language) -> None:
        self._language = language

    @classmethod
    def of(cls, languages: Languages, code: str) -> Words:
        """The words of the catalog `code` names (English when the bot has none of that name)."""
        return cls(languages.language(code))

    @property
    def code(self) -> str:
        return self._language.code

    def say(self, entry: str, **values: object) -> str:
        """The entry in this language, its placeholders filled with `values` (as given: escape
        what came from outside first)."""
        return self._language.translate(entry).format(**values)

    def reason(self, text: str) -> str:
        """A phrase said in this language (its numbers and inner phrases too); other text as it is."""
        if not isinstance(text, Phrase):
            return text
        return self.say(text.entry, **{name: self._value(v) for name, v in text.values.items()})

    def number(self, value: float, *, digits: int = 0, trim: bool = False) -> str:
        return self._language.decimal(value, digits=digits, trim=trim)

    def megabytes(self, size: float, *, digits: int = 2) -> str:
        return self.say(texts.MEGABYTES, number=self.number(size / MB, digits=digits))

    def duration(self, seconds: float) -> str:
        """ "25m", "1h 5m" in this language's units."""
        return self.reason(short_duration(seconds))

    def _value(self, value: object) -> str:
        if isinstance(value, str):
            return self.reason(value)
        if isinstance(value, float):
            return self.number(value, digits=2, trim=True)
        return str(value)

    # Commands ------------------------------------------------------------------------------

    def help(self, bot_username: str | None) -> str:
        return self.say(texts.HELP, bot=bot_username or self.say(texts.HELP_BOT_NAME))

    def command_usage(self, command: str) -> str:
        return self.say(texts.COMMAND_USAGE, command=command)

    def status(self, lines: Sequence[tuple[str, object]]) -> str:
        """`lines`: (catalog entry, value) pairs; a value that is a phrase is said too."""
        return "\n".join(
            self.say(texts.STATUS_LINE, label=escape(self.say(k)), value=escape(self._value(v)))
            for k, v in lines
        )

    # The log message -----------------------------------------------------------------------

    def queued(self, ahead: int) -> str:
        return self.say(texts.QUEUED, ahead=ahead)

    def first_line(self, ahead: int) -> str:
        """What a link's log message says when it is accepted."""
        return self.queued(ahead) if ahead > 0 else self.say(texts.SCRAPING)

    def video_info(self, info: VideoInfo) -> str:
        lines = [
            self.say(texts.INFO_URL, url=escape(info.webpage_url)),
            self.say(texts.INFO_TITLE, title=escape(info.title)),
        ]
        if info.duration is not None:
            lines.append(self.say(texts.INFO_DURATION, seconds=self.number(info.duration)))
        if info.filesize is not None:
            lines.append(self.say(texts.INFO_SIZE, size=self.megabytes(info.filesize)))
        if info.width and info.height:
            lines.append(self.say(texts.INFO_RESOLUTION, width=info.width, height=info.height))
        if info.vcodec and info.vcodec != "none":
            rate = self.say(texts.INFO_RATE, kbps=self.number(info.tbr)) if info.tbr else ""
            lines.append(self.say(texts.INFO_VIDEO_CODEC, codec=escape(info.vcodec), rate=rate))
        if info.acodec and info.acodec != "none":
            lines.append(self.say(texts.INFO_AUDIO_CODEC, codec=escape(info.acodec)))
        return self.say(texts.VIDEO_INFO, lines="\n".join(lines))

    def stage_line(self, progress: Progress, upload_limit_bytes: int) -> str | None:
        """The lasting line that opens a stage after the download; None for the download itself."""
        match progress.stage:
            case Stage.CONVERT:
                return self.say(texts.CONVERTING)
            case Stage.COMPRESS:
                # Telegram's limits are binary megabytes (50 MB = 50 x 1024 x 1024 bytes): named
                # as it names them.
                limit = self.megabytes(upload_limit_bytes / 1024 / 1024 * MB, digits=0)
                return self.say(texts.COMPRESSING, limit=limit)
            case Stage.DOWNLOAD:
                return None

    def progress_line(self, progress: Progress) -> str:
        parts = [self.progress_bar(progress.percent)]
        if progress.speed_bytes:
            parts.append(self.say(texts.SPEED, size=self.megabytes(progress.speed_bytes)))
        if progress.eta_seconds is not None:
            parts.append(self.say(texts.ETA, eta=clock_duration(progress.eta_seconds)))
        return " · ".join(parts)

    def progress_bar(self, percent: float | None) -> str:
        share = min(max(percent or 0.0, 0.0), 100.0)
        filled = round(share / 100 * _BAR_CELLS)
        return f"[{'█' * filled}{'░' * (_BAR_CELLS - filled)}] {self.number(share, digits=1)}%"

    def uploading(self, size: int) -> str:
        return self.say(texts.UPLOADING, size=self.megabytes(size))

    def sent(self, size: int | None) -> str:
        return self.say(texts.SENT_SIZED, size=self.megabytes(size)) if size else self.say(texts.SENT)

    def retrying(self, next_attempt: int, max_attempts: int) -> str:
        return self.say(texts.RETRYING, attempt=next_attempt, max_attempts=max_attempts)

    def failed(self, reason: str) -> str:
        return self.say(texts.FAILED, reason=escape(self.reason(reason)))

    def fanned_out(self, count: int) -> str:
        return self.say(texts.FANNED_OUT, count=count)

    def output_chunk(self, text: str) -> str:
        return self.say(texts.OUTPUT_CHUNK, text=escape(text.rstrip()))

    # Answers to a link ---------------------------------------------------------------------

    def refused_url(self, url: str, why: str) -> str:
        return self.say(texts.REFUSED_URL, url=escape(url), why=escape(self.reason(why)))

    def link_limit(self, limit: int, window_seconds: float, wait_seconds: float, until: float) -> str:
        """When the user may send again: how long from now, and the moment (UTC), both to the
        minute, rounded up (never a moment that is still too early)."""
        entry = texts.LINK_LIMIT_HOUR if window_seconds <= 3600 else texts.LINK_LIMIT_DAY
        wait = self.duration(math.ceil(wait_seconds / 60) * 60)
        return self.say(entry, limit=limit, wait=wait, at=minute_after(until))

    def long_video_prompt(self, duration: float) -> str:
        return self.say(texts.LONG_VIDEO_PROMPT, duration=self.duration(duration))

    # Inline mode ---------------------------------------------------------------------------

    def variant_title(self, title: str, variant: str) -> str:
        return self.say(texts.INLINE_VARIANT_TITLES[variant], title=title)

    def inline_fetching(self, url: str, *, sound: bool = False) -> str:
        return self.say(texts.INLINE_FETCHING_SOUND if sound else texts.INLINE_FETCHING, url=escape(url))

    # /settings -----------------------------------------------------------------------------

    def on_off(self, on: bool) -> str:
        return self.say(texts.ON if on else texts.OFF)

    def quality_name(self, height: int | None) -> str:
        if height is None:
            return self.say(texts.QUALITY_BEST_THAT_FITS)
        return self.say(texts.QUALITY_UP_TO, height=height)

    def long_videos(self, threshold: float | None) -> str:
        """How a group's long videos go: never asked about, or from what length."""
        if threshold is None:
            return self.say(texts.LONG_VIDEOS_SENT)
        return self.say(texts.LONG_VIDEOS_ASK, duration=self.duration(threshold))
