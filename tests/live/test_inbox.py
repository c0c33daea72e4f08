"""The live feed's inbox on its own: each input applied to the state, and what arrives
between two pushes coalesced per row into one set of changes (no loop, no cache, no layer)."""

from dataclasses import replace
from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest

from dashboard.live.inbox import Inbox
from dashboard.live.state import LiveState
from dashboard.testing.feeds import T0, Events
from dashboard.upstream import contract as c

CAMPAIGN = c.Campaign("cmp-1", "Spring renewals", "active", "predictive", 200, 50, 20, 5, T0)


class Wakes:
    """Counts how often the inbox tells the push loop that something is pending."""

    def __init__(self):
        self.count = 0

    def __call__(self):
        self.count += 1


@pytest.fixture
def wakes():
    return Wakes()


@pytest.fixture
def inbox(wakes):
    inbox = Inbox(LiveState(ZoneInfo("UTC")), figures={"service_level_s": 20}, wake=wakes)
    inbox.take()  # the first push, the whole view, is gone: start from a quiet floor
    wakes.count = 0
    return inbox


def test_the_first_push_is_the_whole_view():
    assert Inbox(LiveState(ZoneInfo("UTC"))).take().full


def test_events_between_two_pushes_go_out_as_one_row_each_the_newest_state(inbox, wakes):
    events = Events()
    for at_s, status in enumerate(("ringing", "on_call", "wrap_up")):
        inbox.event(events.agent(at_s, "a1", status))
    inbox.event(events.agent(3, "a2", "paused"))
    changes = inbox.take()
    assert changes.agents == {"a1", "a2"} and changes.kpis and not changes.full
    assert inbox.state.agents["a1"].status == "wrap_up"  # what the one a1 tile will show
    # Each tile carries the seq and emitted time of the newest event it shows.
    assert inbox.stamps["a1"] == (3, round((T0 + timedelta(seconds=2)).timestamp() * 1000))
    assert inbox.stamps["a2"] == (4, round((T0 + timedelta(seconds=3)).timestamp() * 1000))
    assert wakes.count == 4
    assert not inbox.take()  # taken: the next push starts from nothing


def test_a_call_that_started_and_ended_between_two_pushes_goes_out_removed(inbox):
    events = Events()
    inbox.event(events.started(0, "k1", "a1"))
    inbox.event(events.started(1, "k2", "a1"))
    inbox.event(events.ended(5, "k1", 5))
    changes = inbox.take()
    assert changes.calls == {"k2"} and changes.removed_calls == {"k1"}
    assert set(inbox.state.calls) == {"k2"}


def test_a_snapshot_redraws_the_whole_view_with_the_services_agents(inbox, wakes):
    inbox.event(Events().agent(0, "a1", "available"))
    inbox.snapshot([c.Agent("a2", "Bo", "Support", "paused", T0, None)], [])
    assert inbox.take().full and set(inbox.state.agents) == {"a2"}
    assert wakes.count == 2


def test_the_services_status_wakes_the_loop_only_when_it_changed(inbox, wakes):
    inbox.status("connected")
    inbox.status("connected")
    assert wakes.count == 1 and inbox.upstream["state"] == "connected"
    since = inbox.upstream["since"]
    inbox.status("connected", "reconnecting in 2 s")
    assert wakes.count == 2 and inbox.upstream["reason"] == "reconnecting in 2 s"
    assert inbox.upstream["since"] >= since
    assert not inbox.take()  # no row changed: the push carries the header's status alone


def test_the_ai_status_wakes_the_loop_only_when_it_changed(inbox, wakes):
    inbox.ai_status(True)
    inbox.ai_status(True)
    assert wakes.count == 1 and inbox.ai_enabled is True
    inbox.ai_status(False)
    assert wakes.count == 2 and inbox.ai_enabled is False


def test_a_campaigns_new_name_redraws_every_call_and_its_progress_only_the_board(inbox, wakes):
    events = Events()
    for agent_id in ("a1", "a2"):
        inbox.event(events.agent(0, agent_id, "available"))
    inbox.event(events.started(1, "k1", "a1"))
    inbox.event(events.started(2, "k2"))  # not yet answered by an agent
    inbox.take()
    inbox.campaigns([CAMPAIGN])
    changes = inbox.take()
    # Each call row names its campaign, and so does the tile of the agent on the call.
    assert changes.calls == {"k1", "k2"} and changes.agents == {"a1"} and changes.board
    assert not changes.full  # not every tile on every screen
    assert inbox.campaign_names == {"cmp-1": "Spring renewals"}
    inbox.campaigns([replace(CAMPAIGN, dialed_contacts=60)])
    changes = inbox.take()
    assert changes.board and not changes.full
    assert inbox.campaign_rows[0].dialed_contacts == 60
    woken = wakes.count
    inbox.campaigns([replace(CAMPAIGN, dialed_contacts=60)])
    assert not inbox.take() and wakes.count == woken  # the same: nothing to push


def test_figures_from_outside_redraw_the_kpis_and_board_when_they_changed(inbox, wakes):
    inbox.event(Events().queue(0, "q1", 3, 40))
    inbox.take()
    woken = wakes.count
    inbox.set_figures({"service_level_s": 20})  # as it was
    assert not inbox.take() and wakes.count == woken
    inbox.set_figures({"appointments_today": 4})
    changes = inbox.take()
    assert changes.kpis and changes.board and not changes.queues
    assert inbox.figures == {"service_level_s": 20, "appointments_today": 4}
    inbox.set_figures({"inbound": {"queues": {"q1": {"goal_pct": 80}}}})
    assert inbox.take().queues == {"q1"}  # each queue's row shows its own plan


def test_a_failed_push_goes_out_with_the_next(inbox, wakes):
    events = Events()
    inbox.event(events.started(0, "k1", "a1"))
    failed = inbox.take()
    inbox.event(events.agent(1, "a2", "paused"))
    woken = wakes.count
    inbox.keep(failed)
    assert wakes.count == woken  # the loop's next wake carries it
    changes = inbox.take()
    assert changes.calls == {"k1"} and changes.agents == {"a2"}


def test_a_call_that_ended_while_a_failed_push_was_on_its_way_goes_out_removed(inbox):
    events = Events()
    inbox.event(events.started(0, "k1", "a1"))
    failed = inbox.take()  # the push that draws k1 is on its way
    inbox.event(events.ended(9, "k1", 9))  # meanwhile the call ends
    inbox.keep(failed)  # and that push failed
    changes = inbox.take()
    assert changes.removed_calls == {"k1"} and changes.calls == set()
