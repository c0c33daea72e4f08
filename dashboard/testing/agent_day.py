"""An agent's day as the dashboard stores it, for the drill-down's tests: two hours with a
call handled, a break, its QA, compliance checks and coaching alerts."""

from datetime import timedelta

from django.core.cache import cache
from django.utils import timezone

from dashboard.drilldown.models import CallSeen
from dashboard.quality.models import (
    CoachingAction,
    CoachingAlert,
    CompletedCall,
    ComplianceResult,
    Scorecard,
)
from dashboard.shared.cache_keys import NAMES_KEY
from dashboard.shared.today import start_of_today
from dashboard.states.codec import Change
from dashboard.states.reader import rows_for

AGENT = "ag-1"


def a_day(agent_id=AGENT, name="Ava Patel"):
    """Two hours of an agent's day: a call handled, a break; its QA, checks and alerts."""
    now = timezone.now()
    t0 = now - timedelta(hours=2)
    at = lambda s: t0 + timedelta(seconds=s)  # noqa: E731
    states = [
        ("offline", start_of_today() - timedelta(hours=1), ""),
        ("available", at(0), ""),
        ("ringing", at(600), "k1"),
        ("on_call", at(610), "k1"),
        ("wrap_up", at(910), "k1"),
        ("available", at(970), ""),
        ("paused", at(3600), ""),
    ]
    changes = [Change(since, state, call_id) for state, since, call_id in states]
    for row in rows_for(agent_id, changes):
        row.save()
    CallSeen.objects.create(
        call_id="k1",
        agent_id=agent_id,
        campaign_id="cmp-1",
        direction="outbound",
        started_at=at(600),
        ended_at=at(910),
        outcome="sale",
        duration_s=300,
    )
    CompletedCall.objects.create(
        call_id="k1",
        agent_id=agent_id,
        outcome="sale",
        duration_s=300,
        completed_at=at(912),
        transcript="Agent: hello",
    )
    CompletedCall.objects.create(  # yesterday's: not today's
        call_id="k0", agent_id=agent_id, outcome="busy", duration_s=5, completed_at=at(-86400)
    )
    for n, (score, passed) in enumerate([(80, True), (50, False)]):
        Scorecard.objects.create(
            scorecard_id=f"s{n}",
            call_id="k1",
            agent_id=agent_id,
            score=score,
            max_score=100,
            passed=passed,
            scored_at=at(1000 + n),
        )
    for n, passed in enumerate([False, True]):
        ComplianceResult.objects.create(
            check_id=f"c{n}",
            call_id="k1",
            agent_id=agent_id,
            rule="recording_disclosure" if not passed else "dnc_check",
            passed=passed,
            details="" if passed else "Required statement not detected",
            checked_at=at(1000),
        )
    CoachingAlert.objects.create(
        alert_id="al-open",
        agent_id=agent_id,
        call_id="k1",
        kind="long_hold",
        severity="critical",
        message="Held for 4 minutes",
        raised_at=at(1100),
    )
    done = CoachingAlert.objects.create(
        alert_id="al-done",
        agent_id=agent_id,
        kind="script_deviation",
        severity="info",
        message="Skipped the greeting",
        status=CoachingAlert.RESOLVED,
        raised_at=at(1200),
    )
    CoachingAction.objects.create(alert=done, action="resolve", note="Talked it through")
    cache.set(NAMES_KEY, {agent_id: name})
