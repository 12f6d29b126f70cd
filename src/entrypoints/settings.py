"""Configuration: the environment of SPEC §6, validated once at start.

A bad value exits 2 with one line naming the variable — never a traceback.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from core.url_policy import Endpoint

PREFIX = "VIDRELAY_"
IdList = Annotated[tuple[int, ...], NoDecode]
HostPorts = Annotated[tuple[str, ...], NoDecode]


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
    shutdown_grace_seconds: float = Field(30.0, ge=0)
    confirm_longer_than_seconds: float = Field(1200.0, ge=0)
    allow_private_urls: bool = False
    """The SSRF guard off: every address, for the link and every request made for it."""
    private_url_allowlist: HostPorts = ()
    """`host:port,…` that may be private (tests, the demo), as requests name them."""
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

    @field_validator("private_url_allowlist", mode="before")
    @classmethod
    def _split_host_ports(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = [part for part in value.replace(" ", "").split(",") if part]
        if isinstance(value, list | tuple):
            return tuple(_host_port(str(part)) for part in value)
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
    def private_url_endpoints(self) -> tuple[Endpoint, ...]:
        return tuple(Endpoint.parse(entry) for entry in self.private_url_allowlist)

    @property
    def sqlite_path(self) -> Path:
        return self.data_dir / "vidrelay.db"

    def masked(self) -> dict[str, str]:
        """Every effective setting as its environment variable, secrets masked."""
        shown: dict[str, str] = {}
        for name, value in self.model_dump().items():
            shown[PREFIX + name.upper()] = _show(value)
        return shown


def _host_port(entry: str) -> str:
    endpoint = Endpoint.parse(entry)
    host = f"[{endpoint.host}]" if ":" in endpoint.host else endpoint.host
    return f"{host}:{endpoint.port}"


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
