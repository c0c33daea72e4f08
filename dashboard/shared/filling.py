"""Whether today is still being read from the service's history, as every web process reads
it: the live feed's figure `filling_pct`, which the reports room mirrors to the cache
(reports/filling.py); and the one sentence that says so."""

from django.core.cache import cache

from .cache_keys import FILLING_KEY


def filling_pct() -> int | None:
    """Today's share read from the history, in whole percent; None: not filling."""
    pct = cache.get(FILLING_KEY)
    return pct if isinstance(pct, int) else None


def filling_sentence(pct: int) -> str:
    return f"filling today from the service: {pct}%"
