"""Reading a job's payload at the edge: a value of the wrong type is a permanent failure."""

from __future__ import annotations

from ports.json import JsonValue, Payload


class PayloadError(ValueError):
    """A job payload that is not what its job type expects: a permanent failure."""


def read_str(value: JsonValue) -> str:
    if not isinstance(value, str):
        raise PayloadError(f"expected a string, got {value!r}")
    return value


def read_int(value: JsonValue) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise PayloadError(f"expected an integer, got {value!r}")
    return value


def read_optional_int(value: JsonValue) -> int | None:
    return None if value is None else read_int(value)


def read_optional_number(value: JsonValue) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PayloadError(f"expected a number, got {value!r}")
    return float(value)


def read_dict(value: JsonValue) -> Payload:
    return dict(value) if isinstance(value, dict) else {}
