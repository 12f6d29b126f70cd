"""The values of settings as text: parsed from the environment, shown masked, and the one a
setting is made of (the PostgreSQL URL of its parts)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, Protocol
from urllib.parse import quote, urlsplit

from pydantic import SecretStr

from core.url_policy import Endpoint

Switch = Literal["on", "off"]
"""A feature's state as the container's Selectors key it."""


def postgres_dsn(host: str, port: int, user: str, password: str, database: str) -> str:
    """A URL whose parts stay what they are: each is percent-quoted (asyncpg unquotes them), so a
    `/`, `#`, `@` or `%` in a password never splits the URL where it should not."""
    location = f"[{host}]" if ":" in host else host
    secret = f":{quote(password, safe='')}" if password else ""
    return f"postgresql://{quote(user, safe='')}{secret}@{location}:{port}/{quote(database, safe='')}"


def is_readable_file(path: Path) -> bool:
    try:
        with path.open("rb") as file:
            file.read(1)
    except OSError:
        return False
    return path.is_file()


def host_port(entry: str) -> str:
    endpoint = Endpoint.parse(entry)
    host = f"[{endpoint.host}]" if ":" in endpoint.host else endpoint.host
    return f"{host}:{endpoint.port}"


def shown(value: object) -> str:
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


def is_http_proxy(url: str) -> bool:
    try:
        parts = urlsplit(url)
        return parts.scheme == "http" and bool(parts.hostname) and parts.port is not None
    except ValueError:
        return False


def split_ids(value: Any) -> Any:
    """`1, -100200,3` as a tuple of ids (other values go on to pydantic as they are)."""
    if isinstance(value, str):
        return tuple(int(part) for part in value.replace(" ", "").split(",") if part)
    return value


def split_host_ports(value: Any) -> Any:
    if isinstance(value, str):
        value = [part for part in value.replace(" ", "").split(",") if part]
    if isinstance(value, list | tuple):
        return tuple(host_port(str(part)) for part in value)
    return value


class _Database(Protocol):
    """The PostgreSQL connection's settings (entrypoints.settings.storage)."""

    @property
    def database_url(self) -> SecretStr | None: ...

    @property
    def database_host(self) -> str | None: ...

    @property
    def database_port(self) -> int: ...

    @property
    def database_user(self) -> str: ...

    @property
    def database_password(self) -> SecretStr | None: ...

    @property
    def database_name(self) -> str: ...


class _Combined(_Database, Protocol):
    """The settings that only make sense together (entrypoints.settings.model.Settings)."""

    @property
    def store(self) -> str: ...

    @property
    def telegram_local_mode(self) -> bool: ...

    @property
    def telegram_api_url(self) -> str: ...


def inconsistency(settings: _Combined, *, cloud_bot_api: str) -> str | None:
    """Why these settings cannot go together, naming the variables; None when they can."""
    if settings.telegram_local_mode and settings.telegram_api_url == cloud_bot_api:
        return (
            "VIDRELAY_TELEGRAM_LOCAL_MODE=true needs VIDRELAY_TELEGRAM_API_URL of a local Bot API"
            " server (api.telegram.org takes no file:// uploads)"
        )
    if settings.database_url is not None and settings.database_host is not None:
        return "set VIDRELAY_DATABASE_URL or VIDRELAY_DATABASE_HOST (with its parts), not both"
    if settings.store == "postgres" and settings.database_url is None and settings.database_host is None:
        return "VIDRELAY_DATABASE_URL (or VIDRELAY_DATABASE_HOST) is required with VIDRELAY_STORE=postgres"
    return None


def dsn_of(settings: _Database) -> str:
    if settings.database_url is not None:
        return settings.database_url.get_secret_value()
    if settings.database_host is None:
        return ""
    password = settings.database_password.get_secret_value() if settings.database_password else ""
    return postgres_dsn(
        settings.database_host,
        settings.database_port,
        settings.database_user,
        password,
        settings.database_name,
    )
