"""The values of settings as text: parsed from the environment, and shown masked."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import SecretStr

from core.url_policy import Endpoint

Switch = Literal["on", "off"]
"""A feature's state as the container's Selectors key it."""


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
