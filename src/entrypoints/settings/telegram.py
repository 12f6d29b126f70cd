"""Settings of the way to Telegram: the token, the Bot API server, webhooks, inline mode's chat and
how long a delivery waits out an outage."""

from __future__ import annotations

from pydantic import BaseModel, Field, SecretStr, field_validator

from entrypoints.settings.values import Switch

CLOUD_BOT_API = "https://api.telegram.org"


class TelegramSettings(BaseModel):
    bot_token: SecretStr | None = Field(None, description="bot token from @BotFather (required for `run`)")
    telegram_api_url: str = Field(
        CLOUD_BOT_API,
        description="Bot API base; requests go to `{base}/bot{token}/{method}`",
    )
    telegram_local_mode: bool = Field(
        False, description="a local Bot API server: `file://` uploads, 2000 MB limit instead of 50 MB"
    )
    telegram_outage_hours: float = Field(
        24.0,
        gt=0,
        le=24 * 30,
        description="a video whose delivery cannot reach Telegram (5xx, no connection, a timeout) waits "
        "this long, its attempt not charged and its file kept, before the job fails",
    )
    inline_cache_chat_id: int | None = Field(
        None, description="chat the bot uploads to for inline file_ids; inline mode is off without it"
    )
    webhook_url: str | None = Field(None, description="public HTTPS URL for `run --webhook`")
    webhook_secret: SecretStr | None = Field(
        None, description="secret token Telegram sends with each webhook request"
    )
    webhook_port: int = Field(8080, ge=1, le=65535, description="port the webhook server listens on")

    @field_validator("telegram_api_url")
    @classmethod
    def _api_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("must be an http(s) URL")
        return value.rstrip("/")

    @property
    def telegram_outage_seconds(self) -> float:
        return self.telegram_outage_hours * 3600

    @property
    def upload_limit_bytes(self) -> int:
        return 2000 * 1024 * 1024 if self.telegram_local_mode else 50 * 1024 * 1024

    @property
    def inline_mode(self) -> Switch:
        """Inline mode needs a chat to upload into: Telegram gives a file_id only for a sent video."""
        return "on" if self.inline_cache_chat_id is not None else "off"
