"""The agents' names as the live floor last knew them, for the pages fed by webhooks and
summaries (QA, coaching, campaigns, the drill-down), which carry agent ids only."""

from django.core.cache import cache

from dashboard.shared.cache_keys import NAMES_KEY


def agent_names() -> dict:
    """Agent id -> name; empty until the live feed has pushed once."""
    return cache.get(NAMES_KEY) or {}
