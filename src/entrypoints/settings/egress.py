"""Settings of the way out to video sites: the SSRF guard (on, or off, and the private addresses
it lets through) and yt-dlp's proxy."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, SecretStr, field_validator
from pydantic_settings import NoDecode

from core.url_policy import Endpoint
from entrypoints.settings.values import is_http_proxy, split_host_ports

HostPorts = Annotated[tuple[str, ...], NoDecode]


class EgressSettings(BaseModel):
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

    @field_validator("private_url_allowlist", mode="before")
    @classmethod
    def _split_host_ports(cls, value: Any) -> Any:
        return split_host_ports(value)

    @field_validator("proxy")
    @classmethod
    def _http_proxy(cls, value: SecretStr | None) -> SecretStr | None:
        # The message never repeats the value: it may hold the proxy's password.
        if value is not None and not is_http_proxy(value.get_secret_value()):
            raise ValueError("must be http://[user:password@]host:port (an HTTP proxy)")
        return value

    @property
    def private_url_endpoints(self) -> tuple[Endpoint, ...]:
        return tuple(Endpoint.parse(entry) for entry in self.private_url_allowlist)

    @property
    def egress_guard(self) -> Literal["on", "direct", "off"]:
        """The guard's proxy, or with the guard off none (nothing to check): "direct" to VIDRELAY_PROXY."""
        if not self.allow_private_urls:
            return "on"
        return "direct" if self.proxy is not None else "off"

    @property
    def proxy_url(self) -> str | None:
        return self.proxy.get_secret_value() if self.proxy is not None else None
