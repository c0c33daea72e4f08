"""The audit rows a call's and an agent's page list (newest first)."""

from .models import Intervention

SHOWN = 50


def for_call(call_id: str) -> list[Intervention]:
    return list(Intervention.objects.filter(call_id=call_id)[:SHOWN])


def for_agent(agent_id: str) -> list[Intervention]:
    return list(Intervention.objects.filter(agent_id=agent_id)[:SHOWN])


def purgeable(before):
    """The rows older than `before` (the drill-down's retention purge deletes them)."""
    return Intervention.objects.filter(at__lt=before)
