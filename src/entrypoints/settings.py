"""Configuration: the environment of SPEC §6, validated once at start.

A bad value exits 2 with one line naming the variable — never a traceback.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from core.media.playable import MAX_FIT_PASSES
from core.url_policy import Endpoint

PREFIX = "VIDRELAY_"
DOWNLOAD_CAP_FACTOR = 4
_PRIVATE = frozenset({"ytdlp_cookies_file"})
"""Settings shown only as "(masked)": not secrets by type, but nothing an onlooker should read."""
IdList = Annotated[tuple[int, ...], NoDecode]
HostPorts = Annotated[tuple[str, ...], NoDecode]
Switch = Literal["on", "off"]
"""A feature's state as the container's Selectors key it."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix=PREFIX, extra="ignore", frozen=True)

    bot_token: SecretStr | None = Field(None, description="bot token from @BotFather (required for `run`)")
    telegram_api_url: str = Field(
        "https://api.telegram.org",
        description="Bot API base; requests go to `{base}/bot{token}/{method}`",
    )
    telegram_local_mode: bool = Field(
        False, description="a local Bot API server: `file://` uploads, 2000 MB limit instead of 50 MB"
    )
    data_dir: Path = Field(Path("./data"), description="SQLite file, blobs, staging, yt-dlp installs")
    store: Literal["sqlite", "memory", "postgres"] = Field(
        "sqlite",
        description="`sqlite` (one file in the data folder), `memory` (nothing survives a restart) or "
        "`postgres` (one ingest and many workers sharing `VIDRELAY_DATABASE_URL`)",
    )
    database_url: SecretStr | None = Field(
        None, description="`postgresql://user:password@host:5432/db`, for `VIDRELAY_STORE=postgres`"
    )
    database_pool_size: int = Field(
        4, ge=2, le=100, description="PostgreSQL connections per process, besides the listening one"
    )
    job_concurrency: int = Field(3, ge=1, le=64, description="jobs at once")
    ytdlp_concurrency: int = Field(3, ge=1, le=64, description="yt-dlp processes at once")
    max_attempts: int = Field(
        3, ge=1, le=100, description="attempts per job (a crash counts: attempts are written ahead)"
    )
    retry_base_seconds: float = Field(
        1.0, gt=0, le=3600, description="backoff base: attempt n waits about base·2^(n-1), ±25 % jitter"
    )
    lease_seconds: float = Field(
        30.0,
        ge=1,
        le=3600,
        description="a running job's claim, renewed every third of it; a job whose worker died is "
        "claimable again once its lease ended",
    )
    ytdlp_timeout_seconds: float = Field(300.0, gt=0, description="per-attempt yt-dlp deadline")
    ytdlp_update_interval_seconds: float = Field(
        300.0, ge=0, description="yt-dlp self-update period; 0 disables the updater"
    )
    ytdlp_channel: Literal["stable", "nightly"] = Field(
        "stable", description="`stable` or `nightly` (pre-releases)"
    )
    ytdlp_warm: bool = Field(
        True,
        description="fork yt-dlp runs from a pre-warmed server (a scrape: ~0.2 s of CPU instead of ~1 s)",
    )
    ytdlp_warm_idle_seconds: float = Field(
        120.0, gt=0, description="the warm server (~50 MB) exits after this long without a run"
    )
    ytdlp_pip_args: str = Field(
        "", description="extra pip arguments for the updater (a private index, `--find-links`); empty = PyPI"
    )
    ytdlp_cookies_file: Path | None = Field(
        None,
        description="a Netscape cookies.txt passed to yt-dlp for sites that need a login; never shown "
        "or logged, a missing or unreadable file refuses the start",
    )
    max_download_bytes: int | None = Field(
        None,
        ge=1,
        description="nothing bigger is fetched (announced, estimated or counted while it downloads); "
        "unset = 4 times the upload limit, room to compress to fit",
    )
    ffmpeg_timeout_seconds: float = Field(
        600.0, gt=0, description="deadline of one ffmpeg run (a conversion or a compression to fit)"
    )
    shutdown_grace_seconds: float = Field(
        30.0, ge=0, description="in-flight jobs may finish for this long after SIGTERM"
    )
    confirm_longer_than_seconds: float = Field(
        1200.0, ge=0, description="videos longer than this ask for a confirmation in groups"
    )
    allow_private_urls: bool = Field(
        False, description="SSRF guard off: any address, for the link and every request made for it"
    )
    private_url_allowlist: HostPorts = Field(
        (),
        description="comma-separated `host:port` the SSRF guard lets through though private "
        "(tests, the demo), matched as the request names the host",
    )
    allowed_chat_ids: IdList = Field(
        (), description="comma-separated chat ids the bot serves; empty = everyone"
    )
    admin_user_ids: IdList = Field((), description="comma-separated user ids that may use `/status`")
    inline_cache_chat_id: int | None = Field(
        None, description="chat the bot uploads to for inline file_ids; inline mode is off without it"
    )
    max_queued_per_user: int = Field(10, ge=1, description="per-user queue cap")
    user_hourly_links: int = Field(
        0,
        ge=0,
        description="links one user may send per hour (admins exempt; counted in the store); 0 = off",
    )
    user_daily_links: int = Field(
        0,
        ge=0,
        description="links one user may send per 24 hours (admins exempt; counted in the store); 0 = off",
    )
    intake_retry_seconds: float = Field(
        60.0,
        gt=0,
        description="a link the store refuses for now (locked, busy, disk full) is tried again for this "
        "long before the user is asked to send it again",
    )
    queue_order: Literal["fair", "fifo"] = Field(
        "fair",
        description="`fair`: workers take the next link round-robin across users (a group counts as one); "
        "`fifo`: strictly in the order links came (what `bench/fairness.py` compares with)",
    )
    max_blob_bytes: int = Field(
        0,
        ge=0,
        description="cap on the blob folder, least recently used sent videos go first; 0 = no cap",
    )
    metrics_port: int = Field(0, ge=0, le=65535, description="Prometheus `/metrics` and `/healthz`; 0 = off")
    log_format: Literal["text", "json"] = Field(
        "text", description="`text` (key=value) or `json`, one line per event"
    )
    log_level: Literal["debug", "info", "warning", "error"] = Field(
        "info", description="`debug` adds tracebacks to the text format's error lines"
    )
    sqlite_synchronous: Literal["FULL", "NORMAL"] = Field(
        "FULL", description="SQLite durability, see Storage and durability"
    )
    webhook_url: str | None = Field(None, description="public HTTPS URL for `run --webhook`")
    webhook_secret: SecretStr | None = Field(
        None, description="secret token Telegram sends with each webhook request"
    )
    webhook_port: int = Field(8080, ge=1, le=65535, description="port the webhook server listens on")

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

    @model_validator(mode="after")
    def _postgres_needs_its_url(self) -> Settings:
        if self.store == "postgres" and self.database_url is None:
            raise ValueError("VIDRELAY_DATABASE_URL is required with VIDRELAY_STORE=postgres")
        return self

    @property
    def fair_queue(self) -> bool:
        return self.queue_order == "fair"

    @property
    def heartbeat_seconds(self) -> float:
        """Three renewals per lease: one late or failed heartbeat never loses a live job."""
        return self.lease_seconds / 3

    @property
    def single_process_store(self) -> bool:
        """Only one process ever uses the store (SQLite's instance lock, memory)."""
        return self.store != "postgres"

    @property
    def database_dsn(self) -> str:
        return "" if self.database_url is None else self.database_url.get_secret_value()

    @property
    def upload_limit_bytes(self) -> int:
        return 2000 * 1024 * 1024 if self.telegram_local_mode else 50 * 1024 * 1024

    @property
    def download_cap_bytes(self) -> int:
        """Room for compress-to-fit: a source a few times the limit can still be brought under it."""
        return self.max_download_bytes or DOWNLOAD_CAP_FACTOR * self.upload_limit_bytes

    @property
    def private_url_endpoints(self) -> tuple[Endpoint, ...]:
        return tuple(Endpoint.parse(entry) for entry in self.private_url_allowlist)

    @property
    def sqlite_path(self) -> Path:
        return self.data_dir / "vidrelay.db"

    @property
    def attempt_timeout_seconds(self) -> float:
        """A whole attempt: a scrape and a download, each with its own yt-dlp deadline, the passes
        of a conversion or compression with ffmpeg's, plus the upload."""
        return 2 * self.ytdlp_timeout_seconds + MAX_FIT_PASSES * self.ffmpeg_timeout_seconds + 300

    @property
    def inline_mode(self) -> Switch:
        """Inline mode needs a chat to upload into: Telegram gives a file_id only for a sent video."""
        return "on" if self.inline_cache_chat_id is not None else "off"

    @property
    def egress_guard(self) -> Switch:
        """The guard's proxy between the tools and the network; with the guard off it is not started
        at all (nothing to check), so yt-dlp and ffmpeg connect directly."""
        return "off" if self.allow_private_urls else "on"

    @property
    def ytdlp_updates(self) -> Switch:
        return "on" if self.ytdlp_update_interval_seconds > 0 else "off"

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
        if not first["loc"]:  # a rule across settings names its variables itself
            raise SettingsError(str(first["msg"]).removeprefix("Value error, ")) from None
        variable = PREFIX + "_".join(str(part) for part in first["loc"][:1]).upper()
        raise SettingsError(f"invalid {variable}: {first['msg']}") from None
    except ValueError as error:
        raise SettingsError(f"invalid configuration: {error}") from None
