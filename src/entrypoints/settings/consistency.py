"""The settings that only make sense together: one rule across the groups, whose message names
the variables at fault (`Settings` checks it once all are parsed)."""

from __future__ import annotations

from typing import Protocol

from pydantic import SecretStr


class _Combined(Protocol):
    """The settings that only make sense together (entrypoints.settings.model.Settings)."""

    @property
    def store(self) -> str: ...

    @property
    def telegram_local_mode(self) -> bool: ...

    @property
    def telegram_api_url(self) -> str: ...

    @property
    def database_url(self) -> SecretStr | None: ...

    @property
    def database_host(self) -> str | None: ...


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
