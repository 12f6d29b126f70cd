"""Settings of the PostgreSQL connection (with `VIDRELAY_STORE=postgres`): where the server is, as
one URL or its parts, and how long a call, an idle transaction, a silent peer or a connection
may take."""

from __future__ import annotations

from pydantic import BaseModel, Field, SecretStr

from entrypoints.settings.dsn import dsn_of


class DatabaseSettings(BaseModel):
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

    @property
    def database_dsn(self) -> str:
        """VIDRELAY_DATABASE_URL, or the URL of its parts (empty: neither is set)."""
        return dsn_of(self)
