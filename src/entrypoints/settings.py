"""Configuration: the environment of SPEC §6 (and a `.env` file: see entrypoints.environment),
validated once at start.

A bad value exits 2 with one line naming the variable — never a traceback.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from core.media.playable import MAX_FIT_PASSES
from core.url_policy import Endpoint
from entrypoints import environment
from entrypoints import setting_values as values
from entrypoints.environment import DEFAULT_ENV_FILE, unknown_variables, vidrelay_variables

PREFIX = environment.PREFIX
CLOUD_BOT_API = "https://api.telegram.org"
DOWNLOAD_CAP_FACTOR = 4
_PRIVATE = frozenset({"ytdlp_cookies_file", "proxy"})
"""Settings shown only as "(masked)": not secrets by type, but nothing an onlooker should read."""
IdList = Annotated[tuple[int, ...], NoDecode]
HostPorts = Annotated[tuple[str, ...], NoDecode]
Switch = Literal["on", "off"]
"""A feature's state as the container's Selectors key it."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix=PREFIX, extra="ignore", frozen=True)

    bot_token: SecretStr | None = Field(None, description="bot token from @BotFather (required for `run`)")
    telegram_api_url: str = Field(
        CLOUD_BOT_API,
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
        None,
        description="`postgresql://user:password@host:5432/db`, for `VIDRELAY_STORE=postgres` (or the "
        "`VIDRELAY_DATABASE_HOST`… parts below)",
    )
    database_host: str | None = Field(
        None,
        description="instead of the URL: the PostgreSQL server, with the port, user, password and database "
        "below, each taken as written (a password may hold `/`, `#`, `@`, `%`)",
    )
    database_port: int = Field(5432, ge=1, le=65535, description="with `VIDRELAY_DATABASE_HOST`")
    database_user: str = Field("vidrelay", min_length=1, description="with `VIDRELAY_DATABASE_HOST`")
    database_password: SecretStr | None = Field(None, description="with `VIDRELAY_DATABASE_HOST`")
    database_name: str = Field("vidrelay", min_length=1, description="with `VIDRELAY_DATABASE_HOST`")
    database_pool_size: int = Field(
        4, ge=2, le=100, description="PostgreSQL connections per process, besides the listening one"
    )
    database_statement_timeout_seconds: float = Field(
        15.0,
        gt=0,
        le=3600,
        description="a PostgreSQL call that runs longer fails and is retried (the server stops it; "
        "behind a silent network the call gives up 2 s later and its connection is dropped)",
    )
    database_idle_in_transaction_timeout_seconds: float = Field(
        30.0,
        gt=0,
        le=3600,
        description="the server ends a vidrelay session that sits this long inside a transaction, "
        "and its locks go with it",
    )
    database_keepalive_seconds: float = Field(
        10.0,
        ge=1,
        le=3600,
        description="an idle PostgreSQL connection is probed (TCP keepalive, both ends) after this "
        "long, so a peer that vanished is noticed within about twice it",
    )
    database_connect_timeout_seconds: float = Field(
        10.0, gt=0, le=600, description="a connection to PostgreSQL that takes longer fails and is retried"
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
        "unset = the upload limit times the larger of 4 and `VIDRELAY_MAX_PARTS`, room to compress to "
        "fit or to cut into parts",
    )
    max_parts: int = Field(
        8,
        ge=1,
        le=50,
        description="a video no watchable bitrate brings under the upload limit is cut at keyframes into "
        "at most this many parts, sent as albums; beyond, it is refused as too large; 1 = never cut",
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
    proxy: SecretStr | None = Field(
        None,
        description="yt-dlp's way out: `http://[user:password@]host:port` of your proxy (for sites that "
        "refuse datacenter addresses); the SSRF guard still checks every address first",
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
        (),
        description="comma-separated chat ids the bot serves (`/id` in a chat tells its id); empty = "
        "everyone; a chat off the list that sends a link is told so, once an hour",
    )
    admin_user_ids: IdList = Field(
        (), description="comma-separated user ids that may use `/status` and `/verbose` (`/id` tells yours)"
    )
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
        3600.0,
        gt=0,
        description="an update kept in the inbox whose link the store will not queue yet (locked, busy, "
        "disk full) is handled again, with backoff, for this long; then its sender is asked to send it again",
    )
    telegram_outage_hours: float = Field(
        24.0,
        gt=0,
        le=24 * 30,
        description="a video whose delivery cannot reach Telegram (5xx, no connection, a timeout) waits "
        "this long, its attempt not charged and its file kept, before the job fails",
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
    metrics_host: str = Field(
        "0.0.0.0",  # noqa: S104 - scraped from outside the container by default
        min_length=1,
        description="the address `/metrics` and `/healthz` listen on: `127.0.0.1` keeps them on this machine",
    )
    health_stale_seconds: float = Field(
        60.0, ge=2, le=3600, description="`/healthz` is 503 once no update came from Telegram this long"
    )
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
    env_file: str = Field(
        DEFAULT_ENV_FILE,
        description="a file of `VIDRELAY_*=value` lines (Compose's `.env`) read at start, from the working "
        "directory; the environment wins over it; empty = none",
    )

    @field_validator("allowed_chat_ids", "admin_user_ids", mode="before")
    @classmethod
    def _split_ids(cls, value: Any) -> Any:
        return values.split_ids(value)

    @field_validator("ytdlp_cookies_file")
    @classmethod
    def _readable(cls, value: Path | None) -> Path | None:
        # The message names no path: the variable is enough to find it, and the path stays private.
        if value is not None and not values.is_readable_file(value):
            raise ValueError("the cookies file is missing, not a file, or not readable")
        return value

    @field_validator("private_url_allowlist", mode="before")
    @classmethod
    def _split_host_ports(cls, value: Any) -> Any:
        return values.split_host_ports(value)

    @field_validator("proxy")
    @classmethod
    def _http_proxy(cls, value: SecretStr | None) -> SecretStr | None:
        # The message never repeats the value: it may hold the proxy's password.
        if value is not None and not values.is_http_proxy(value.get_secret_value()):
            raise ValueError("must be http://[user:password@]host:port (an HTTP proxy)")
        return value

    @field_validator("telegram_api_url")
    @classmethod
    def _api_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("must be an http(s) URL")
        return value.rstrip("/")

    @model_validator(mode="after")
    def _consistent(self) -> Settings:
        if (problem := values.inconsistency(self, cloud_bot_api=CLOUD_BOT_API)) is not None:
            raise ValueError(problem)
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
    def telegram_outage_seconds(self) -> float:
        return self.telegram_outage_hours * 3600

    @property
    def store_sharing(self) -> Literal["alone", "shared"]:
        """The container's Selector key: `single_process_store` as a word."""
        return "alone" if self.single_process_store else "shared"

    @property
    def database_dsn(self) -> str:
        """VIDRELAY_DATABASE_URL, or the URL of its parts (empty: neither is set)."""
        return values.dsn_of(self)

    @property
    def upload_limit_bytes(self) -> int:
        return 2000 * 1024 * 1024 if self.telegram_local_mode else 50 * 1024 * 1024

    @property
    def download_cap_bytes(self) -> int:
        """Room for compress-to-fit (a source a few times the limit can still be brought under it)
        and for the parts a video past any watchable bitrate is cut into."""
        return self.max_download_bytes or max(DOWNLOAD_CAP_FACTOR, self.max_parts) * self.upload_limit_bytes

    @property
    def private_url_endpoints(self) -> tuple[Endpoint, ...]:
        return tuple(Endpoint.parse(entry) for entry in self.private_url_allowlist)

    @property
    def sqlite_path(self) -> Path:
        return self.data_dir / "vidrelay.db"

    @property
    def attempt_timeout_seconds(self) -> float:
        """A whole attempt: a scrape and a download, each with its own yt-dlp deadline, the passes
        of a conversion or compression with ffmpeg's (or a conversion and a cut into parts), plus
        the upload."""
        return 2 * self.ytdlp_timeout_seconds + (MAX_FIT_PASSES + 1) * self.ffmpeg_timeout_seconds + 300

    @property
    def inline_mode(self) -> Switch:
        """Inline mode needs a chat to upload into: Telegram gives a file_id only for a sent video."""
        return "on" if self.inline_cache_chat_id is not None else "off"

    @property
    def egress_guard(self) -> Literal["on", "direct", "off"]:
        """The guard's proxy, or with the guard off none (nothing to check): "direct" to VIDRELAY_PROXY."""
        if not self.allow_private_urls:
            return "on"
        return "direct" if self.proxy is not None else "off"

    @property
    def proxy_url(self) -> str | None:
        return self.proxy.get_secret_value() if self.proxy is not None else None

    @property
    def cookies_configured(self) -> bool:
        return self.ytdlp_cookies_file is not None

    @property
    def ytdlp_updates(self) -> Switch:
        return "on" if self.ytdlp_update_interval_seconds > 0 else "off"

    def masked(self) -> dict[str, str]:
        """Every effective setting as its environment variable, secrets masked."""
        variables: dict[str, str] = {}
        for name, value in self.model_dump().items():
            variables[PREFIX + name.upper()] = (
                "(masked)" if name in _PRIVATE and value else values.shown(value)
            )
        return variables


class SettingsError(Exception):
    """One line that names the variable at fault."""


def load_settings(environ: Mapping[str, str] | None = None) -> Settings:
    """The process's settings: its environment and its env file (`.env` unless VIDRELAY_ENV_FILE
    says otherwise). A given `environ` is the whole environment: a file only if it names one."""
    given = _variables(environ)
    known = {k[len(PREFIX) :].lower(): v for k, v in given.items() if k in SETTING_VARIABLES}
    try:
        return Settings.model_validate(known)
    except ValidationError as error:
        first = error.errors()[0]
        if not first["loc"]:  # a rule across settings names its variables itself
            raise SettingsError(str(first["msg"]).removeprefix("Value error, ")) from None
        variable = PREFIX + "_".join(str(part) for part in first["loc"][:1]).upper()
        raise SettingsError(f"invalid {variable}: {first['msg']}") from None
    except ValueError as error:
        raise SettingsError(f"invalid configuration: {error}") from None


SETTING_VARIABLES = frozenset(PREFIX + name.upper() for name in Settings.model_fields)


def misspelt_settings(environ: Mapping[str, str] | None = None) -> list[str]:
    """A line for each VIDRELAY_* name (of the environment or the env file) that is no setting."""
    return unknown_variables(_variables(environ), SETTING_VARIABLES)


def _variables(environ: Mapping[str, str] | None) -> dict[str, str]:
    if environ is None:
        return vidrelay_variables(os.environ)
    return vidrelay_variables(environ, default_file="")
