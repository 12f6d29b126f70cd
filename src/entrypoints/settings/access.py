"""Settings of who may use the bot and how much: the chats it serves, its admins, and each user's
queue cap and hourly and daily link quotas."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field, field_validator
from pydantic_settings import NoDecode

from entrypoints.settings.values import split_ids

IdList = Annotated[tuple[int, ...], NoDecode]


class AccessSettings(BaseModel):
    allowed_chat_ids: IdList = Field(
        (),
        description="comma-separated chat ids the bot serves (`/id` in a chat tells its id); empty = "
        "everyone; a chat off the list that sends a link is told so, once an hour",
    )
    admin_user_ids: IdList = Field(
        (), description="comma-separated user ids that may use `/status` and `/verbose` (`/id` tells yours)"
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

    @field_validator("allowed_chat_ids", "admin_user_ids", mode="before")
    @classmethod
    def _split_ids(cls, value: Any) -> Any:
        return split_ids(value)
