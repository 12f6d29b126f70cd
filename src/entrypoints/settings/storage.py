"""Settings of where vidrelay keeps things: the data folder, the store it runs on (SQLite, memory
or PostgreSQL, whose connection is database.py's), SQLite's durability and the blob folder's cap."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field


class StorageSettings(BaseModel):
    data_dir: Path = Field(Path("./data"), description="SQLite file, blobs, staging, yt-dlp installs")
    store: Literal["sqlite", "memory", "postgres"] = Field(
        "sqlite",
        description="`sqlite` (one file in the data folder), `memory` (nothing survives a restart) or "
        "`postgres` (one ingest and many workers sharing `VIDRELAY_DATABASE_URL`)",
    )
    sqlite_synchronous: Literal["FULL", "NORMAL"] = Field(
        "FULL", description="SQLite durability, see Storage and durability"
    )
    max_blob_bytes: int = Field(
        0,
        ge=0,
        description="cap on the blob folder, least recently used sent videos go first; 0 = no cap",
    )

    @property
    def single_process_store(self) -> bool:
        """Only one process ever uses the store (SQLite's instance lock, memory)."""
        return self.store != "postgres"

    @property
    def store_sharing(self) -> Literal["alone", "shared"]:
        """The container's Selector key: `single_process_store` as a word."""
        return "alone" if self.single_process_store else "shared"

    @property
    def sqlite_path(self) -> Path:
        return self.data_dir / "vidrelay.db"
