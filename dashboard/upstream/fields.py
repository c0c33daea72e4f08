"""Readers of one field of a JSON object the service sent: each checks the value's type
and raises `ContractError` naming the field, or gives the default of an optional one.

Limits the database keeps too (PostgreSQL refuses what SQLite would store): an id longer
than ID_LIMIT or a number outside what a field may hold is refused, free text is cut.
"""

import math
from datetime import datetime

from .errors import ContractError

ID_LIMIT = 200
TEXT_LIMIT = 2000
NAME_LIMIT = 120
MAX_SCORE = 100_000
# Direction overrides and isolates (U+202A-U+202E, U+2066-U+2069): a name holding them
# would turn the text after it around on the page. The marks (U+200E, U+200F) are harmless.
BIDI_CONTROLS = dict.fromkeys([*range(0x202A, 0x202F), *range(0x2066, 0x206A)])


def obj(data, what="payload") -> dict:
    if not isinstance(data, dict):
        raise ContractError(f"{what} is not an object")
    return data


def string(d: dict, key: str, *, optional=False, default=None, limit=ID_LIMIT):
    """An identifier or a code: non-empty, at most `limit` characters."""
    value = d.get(key)
    if value is None and optional:
        return default
    if not isinstance(value, str) or not value:
        raise ContractError(f"{key} must be a non-empty string")
    if len(value) > limit:
        raise ContractError(f"{key} is longer than {limit} characters")
    return value


def text(d: dict, key: str, default="", limit=TEXT_LIMIT) -> str:
    """Free text from the service (names, messages): cut to `limit`, overrides removed."""
    value = d.get(key)
    if not isinstance(value, str):
        return default
    value = value.translate(BIDI_CONTROLS)
    return value if len(value) <= limit else value[: limit - 1] + "\u2026"


def integer(d: dict, key: str, *, default=None, low=None, high=2**31 - 1) -> int:
    """A whole number within [low, high] (by default what a PostgreSQL integer holds)."""
    value = d.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ContractError(f"{key} must be a number")
    if isinstance(value, float) and not math.isfinite(value):  # JSON's NaN and Infinity
        raise ContractError(f"{key} must be a finite number")
    if (low is not None and value < low) or value > high:
        raise ContractError(f"{key} must be between {low} and {high}, not {value}")
    return int(value)


def score(d: dict) -> int:
    """A score between 0 and its own maximum (a score over it would make averages lie)."""
    return integer(d, "score", low=0, high=integer(d, "max_score", low=1, high=MAX_SCORE))


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
