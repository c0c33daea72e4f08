"""Readers of one field of a JSON object the service sent: each checks the value's type
and raises `ContractError` naming the field, or gives the default of an optional one."""

from datetime import datetime

from .errors import ContractError


def obj(data, what="payload") -> dict:
    if not isinstance(data, dict):
        raise ContractError(f"{what} is not an object")
    return data


def string(d: dict, key: str, *, optional=False, default=None):
    value = d.get(key)
    if value is None and optional:
        return default
    if not isinstance(value, str) or not value:
        raise ContractError(f"{key} must be a non-empty string")
    return value


def text(d: dict, key: str, default="") -> str:
    value = d.get(key)
    return value if isinstance(value, str) else default


def integer(d: dict, key: str, *, default=None) -> int:
    value = d.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ContractError(f"{key} must be a number")
    return int(value)


def boolean(d: dict, key: str, default=False) -> bool:
    value = d.get(key, default)
    if not isinstance(value, bool):
        raise ContractError(f"{key} must be true or false")
    return value


def timestamp(d: dict, key: str, *, optional=False) -> datetime | None:
    value = d.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise ContractError(f"{key} must be an ISO 8601 time")
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ContractError(f"{key} is not an ISO 8601 time") from None
    if parsed.tzinfo is None:
        raise ContractError(f"{key} has no time zone")
    return parsed
