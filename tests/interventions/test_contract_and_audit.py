"""What the service sends about interventions is parsed as untrusted, and the audit goes
with the drill-down's data after RETENTION_DAYS."""

from datetime import timedelta

import pytest
from django.utils import timezone

from dashboard.drilldown.retention import purge
from dashboard.interventions.models import Intervention
from dashboard.upstream import contract as c
from dashboard.upstream.errors import ContractError

COMMON = {"organization_id": "org", "seq": 1, "emitted_at": "2026-11-26T02:00:00.000Z"}


def test_a_call_monitor_event_reads_as_far_as_it_can_be_trusted():
    event = c.parse_event(
        "call.monitor",
        {
            **COMMON,
            "call_id": "c1",
            "session_id": "s1",
            "supervisor_id": 7,  # not a string: left empty
            "supervisor_name": "<b>Ana</b>" + "x" * 500,
            "mode": "shout",
            "state": "exploded",
            "at": "yesterday",
        },
    )
    m = event.body
    assert isinstance(m, c.CallMonitor)
    assert (m.call_id, m.session_id, m.mode, m.state, m.at) == (
        "c1",
        "s1",
        "unknown",
        "ended",
        None,
    )
    assert m.supervisor_id == "7" and len(m.supervisor_name) <= 120
    with pytest.raises(ContractError):
        c.parse_event("call.monitor", {**COMMON, "call_id": "c1"})  # no session: not usable


def test_an_agent_status_carries_its_pending_state_and_who_set_it():
    agent = c.parse_event(
        "agent.status",
        {
            **COMMON,
            "agent_id": "a1",
            "status": "on_call",
            "pending_status": "paused",
            "changed_by": "Ana",
        },
    ).body.agent
    assert (agent.pending_status, agent.changed_by) == ("paused", "Ana")
    odd = c.parse_agent_rest(
        {"agentId": "a1", "status": "paused", "pendingStatus": "asleep", "changedBy": 5}
    )
    assert (odd.pending_status, odd.changed_by) == (None, None)


@pytest.mark.django_db
def test_the_audit_is_purged_with_the_drill_downs_data(settings):
    settings.RETENTION_DAYS = 30
    kept, old = (
        Intervention.objects.create(
            by_name="ana",
            action=Intervention.MONITOR,
            call_id=f"c{n}",
            asked="listen",
            outcome=Intervention.DONE,
            http_status=201,
            answer="ringing",
        )
        for n in (1, 2)
    )
    Intervention.objects.filter(pk=old.pk).update(at=timezone.now() - timedelta(days=31))
    assert purge()["interventions"] == 1
    assert list(Intervention.objects.values_list("pk", flat=True)) == [kept.pk]


def test_the_admin_lists_the_audit_read_only_to_managers(alice, bob, client_for):
    row = Intervention.objects.create(
        by_name="ana",
        action=Intervention.STATE,
        agent_id="a42",
        asked="paused: coaching",
        outcome=Intervention.REFUSED,
        http_status=409,
        answer="The agent is busy",
    )
    client = client_for(alice)
    listing = client.get("/admin/interventions/intervention/").content.decode()
    for shown in ("ana", "Set agent state", "paused: coaching", "a42", "Refused"):
        assert shown in listing, shown
    found = client.get("/admin/interventions/intervention/?q=a42").content.decode()
    assert f"/admin/interventions/intervention/{row.pk}/" in found
    assert client.get("/admin/interventions/intervention/add/").status_code == 403
    detail = client.get(f"/admin/interventions/intervention/{row.pk}/change/")
    assert detail.status_code == 200 and 'name="_save"' not in detail.content.decode()
    assert client.get(f"/admin/interventions/intervention/{row.pk}/delete/").status_code == 403
    assert client_for(bob).get("/admin/interventions/intervention/").status_code in (302, 403)
