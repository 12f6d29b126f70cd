"""`Settings`: every group of settings in one validated, frozen value, with what spans groups — the
rule across them, the download cap, an attempt's deadline, and every setting as its variable for
`vidrelay config`."""

from __future__ import annotations

from pydantic import model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from core.media.playable import MAX_FIT_PASSES
from entrypoints.settings.access import AccessSettings
from entrypoints.settings.consistency import inconsistency
from entrypoints.settings.database import DatabaseSettings
from entrypoints.settings.downloads import DownloadSettings
from entrypoints.settings.egress import EgressSettings
from entrypoints.settings.environment import PREFIX
from entrypoints.settings.jobs import JobSettings
from entrypoints.settings.operations import OperationSettings
from entrypoints.settings.storage import StorageSettings
from entrypoints.settings.telegram import CLOUD_BOT_API, TelegramSettings
from entrypoints.settings.values import shown
from entrypoints.settings.ytdlp import YtDlpSettings

DOWNLOAD_CAP_FACTOR = 4
_PRIVATE = frozenset({"ytdlp_cookies_file", "proxy"})
"""Settings shown only as "(masked)": not secrets by type, but nothing an onlooker should read."""


class Settings(
    # pydantic lists the fields of the last base first: the README's table reads from Telegram down.
    BaseSettings,
    OperationSettings,
    AccessSettings,
    EgressSettings,
    DownloadSettings,
    YtDlpSettings,
    JobSettings,
    DatabaseSettings,
    StorageSettings,
    TelegramSettings,
):
    model_config = SettingsConfigDict(env_prefix=PREFIX, extra="ignore", frozen=True)

    @model_validator(mode="after")
    def _consistent(self) -> Settings:
        if (problem := inconsistency(self, cloud_bot_api=CLOUD_BOT_API)) is not None:
            raise ValueError(problem)
        return self

    @property
    def download_cap_bytes(self) -> int:
        """Room for compress-to-fit (a source a few times the limit can still be brought under it)
        and for the parts a video past any watchable bitrate is cut into."""
        return self.max_download_bytes or max(DOWNLOAD_CAP_FACTOR, self.max_parts) * self.upload_limit_bytes

    @property
    def attempt_timeout_seconds(self) -> float:
        """A whole attempt: a scrape and a download, each with its own yt-dlp deadline, the passes
        of a conversion or compression with ffmpeg's (or a conversion and a cut into parts), plus
        the upload."""
        return 2 * self.ytdlp_timeout_seconds + (MAX_FIT_PASSES + 1) * self.ffmpeg_timeout_seconds + 300

    def masked(self) -> dict[str, str]:
        """Every effective setting as its environment variable, secrets masked."""
        variables: dict[str, str] = {}
        for name, value in self.model_dump().items():
            variables[PREFIX + name.upper()] = "(masked)" if name in _PRIVATE and value else shown(value)
        return variables
