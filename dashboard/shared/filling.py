"""Whether today, or the past weeks compared with, are still being read from the service's
history, as every web process reads it: the live feed's figures `filling_pct` and
`filling_past_pct`, which the reports room mirrors to the cache (reports/filling.py) with
an expiry its writer keeps pushing back while a fill goes on (a process that dies
mid-fill leaves no progress behind); the sentences that say so; and the answer of a
download whose rows are partial meanwhile."""

from django.conf import settings
from django.core.cache import cache
from django.http import HttpResponse

from .cache_keys import FILLING_KEY

RETRY_AFTER_S = 30  # a download asked again this much later: a fill takes a minute or more


def _progress(which: str) -> int | None:
    got = cache.get(FILLING_KEY)
    pct = got.get(which) if isinstance(got, dict) else None
    return pct if type(pct) is int else None


def filling_pct() -> int | None:
    """Today's share read from the history, in whole percent; None: not filling."""
    return _progress("today")


def filling_past_pct() -> int | None:
    """The past weeks' share read, in whole percent; None: none being read."""
    return _progress("past")


def store_progress(today: int | None, past: int | None):
    """The writer's side (sync): both figures, until FILLING_EXPIRY_S from now."""
    cache.set(FILLING_KEY, {"today": today, "past": past}, settings.FILLING_EXPIRY_S)


def filling_sentence(pct: int, what: str = "today") -> str:
    """`what` is being read from the service's history: today, or the past weeks the
    normal is made of."""
    return f"filling {what} from the service: {pct}%"


def filling_past_sentence(pct: int) -> str:
    return f"last week: filling from the service: {pct}%"


def still_filling(what: str, pct: int | None) -> HttpResponse | None:
    """A download of rows that take in today while today is read (`pct`, its progress): 503
    with the progress and when to ask again (None: today is read, the rows are whole)."""
    if pct is None:
        return None
    return HttpResponse(
        f"Today is still being read from the service's history ({pct}%): {what} can be "
        "downloaded once it is read.",
        status=503,
        headers={"Retry-After": str(RETRY_AFTER_S)},
        content_type="text/plain; charset=utf-8",
    )
