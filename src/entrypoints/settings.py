"""Configuration: the environment of SPEC §6, validated once at start.

A bad value exits 2 with one line naming the variable — never a traceback.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

PREFIX = "VIDRELAY_"
DOWNLOAD_CAP_FACTOR = 4
_PRIVATE = frozenset({"ytdlp_cookies_file"})
"""Settings shown only as "(masked)": not secrets by type, but nothing an onlooker should read."""
IdList = Annotated[tuple[int, ...], NoDecode]


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix=PREFIX, extra="ignore", frozen=True)

    bot_token: SecretStr | None = None
    telegram_api_url: str = "https://api.telegram.org"
    telegram_local_mode: bool = False
    data_dir: Path = Path("./data")
    store: Literal["sqlite", "memory", "postgres"] = "sqlite"
    database_url: SecretStr | None = None
    job_concurrency: int = Field(3, ge=1, le=64)
    ytdlp_concurrency: int = Field(3, ge=1, le=64)
    max_attempts: int = Field(3, ge=1, le=100)
    retry_base_seconds: float = Field(1.0, gt=0, le=3600)
    ytdlp_timeout_seconds: float = Field(300.0, gt=0)
    ytdlp_update_interval_seconds: float = Field(300.0, ge=0)
    ytdlp_channel: Literal["stable", "nightly"] = "stable"
    ytdlp_warm: bool = True
    """Fork yt-dlp runs from a pre-warmed server instead of starting each one cold."""
    ytdlp_warm_idle_seconds: float = Field(120.0, gt=0)
    """The warm server exits after this long without a run (it holds ~50 MB)."""
    ytdlp_pip_args: str = ""
    """Extra pip arguments for the updater (e.g. a private index); empty = PyPI."""
    ytdlp_cookies_file: Path | None = None
    """A Netscape cookies.txt for sites that need a login; its path and contents are never shown."""
    max_download_bytes: int | None = Field(None, ge=1)
    """Nothing bigger is fetched; unset = DOWNLOAD_CAP_FACTOR times the upload limit."""
    ffmpeg_timeout_seconds: float = Field(600.0, gt=0)
    """Deadline of one ffmpeg run (a conversion or a compression)."""
    shutdown_grace_seconds: float = Field(30.0, ge=0)
    confirm_longer_than_seconds: float = Field(1200.0, ge=0)
    allow_private_urls: bool = False
    allowed_chat_ids: IdList = ()
    admin_user_ids: IdList = ()
    inline_cache_chat_id: int | None = None
    max_queued_per_user: int = Field(10, ge=1)
    max_blob_bytes: int = Field(0, ge=0)
    """Cap on the blob folder; 0 = no cap."""
    metrics_port: int = Field(0, ge=0, le=65535)
    log_format: Literal["text", "json"] = "text"
    sqlite_synchronous: Literal["FULL", "NORMAL"] = "FULL"
    webhook_url: str | None = None
    webhook_secret: SecretStr | None = None
    webhook_port: int = Field(8080, ge=1, le=65535)

    @field_validator("allowed_chat_ids", "admin_user_ids", mode="before")
    @classmethod
    def _split_ids(cls, value: Any) -> Any:
        if isinstance(value, str):
            return tuple(int(part) for part in value.replace(" ", "").split(",") if part)
        return value

    @field_validator("ytdlp_cookies_file")
    @classmethod
    def _readable(cls, value: Path | None) -> Path | None:
        # The message names no path: the variable is enough to find it, and the path stays private.
        if value is not None and not _is_readable_file(value):
            raise ValueError("the cookies file is missing, not a file, or not readable")
        return value

    @field_validator("telegram_api_url")
    @classmethod
    def _api_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("must be an http(s) URL")
        return value.rstrip("/")

    @property
    def upload_limit_bytes(self) -> int:
        return 2000 * 1024 * 1024 if self.telegram_local_mode else 50 * 1024 * 1024

    @property
    def download_cap_bytes(self) -> int:
        """Room for compress-to-fit: a source a few times the limit can still be brought under it."""
        return self.max_download_bytes or DOWNLOAD_CAP_FACTOR * self.upload_limit_bytes

    @property
    def sqlite_path(self) -> Path:
        return self.data_dir / "vidrelay.db"

    def masked(self) -> dict[str, str]:
        """Every effective setting as its environment variable, secrets masked."""
        shown: dict[str, str] = {}
        for name, value in self.model_dump().items():
            shown[PREFIX + name.upper()] = "(masked)" if name in _PRIVATE and value else _show(value)
        return shown


def _is_readable_file(path: Path) -> bool:
    try:
        with path.open("rb") as file:
            file.read(1)
    except OSError:
        return False
    return path.is_file()


def _show(value: object) -> str:
    if isinstance(value, SecretStr):
        secret = value.get_secret_value()
        return f"{secret[:4]}…(masked)" if len(secret) > 8 else "(masked)"
    if value is None:
        return ""
    if isinstance(value, tuple):
        return ",".join(str(v) for v in value)
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


class SettingsError(Exception):
    """One line that names the variable at fault."""


def load_settings(environ: Mapping[str, str] | None = None) -> Settings:
    try:
        if environ is None:
            return Settings()
        relevant = {k[len(PREFIX) :].lower(): v for k, v in environ.items() if k.startswith(PREFIX)}
        return Settings.model_validate(relevant)
    except ValidationError as error:
        first = error.errors()[0]
        variable = PREFIX + "_".join(str(part) for part in first["loc"][:1]).upper()
        raise SettingsError(f"invalid {variable}: {first['msg']}") from None
    except ValueError as error:
        raise SettingsError(f"invalid configuration: {error}") from None
