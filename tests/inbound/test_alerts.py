"""The inbound side's alerts end to end (simulated tenant, a real dashboard process, the
chat webhook posting to a local receiver): a queue whose schedule says closed keeps its
waiting-time alert quiet while callers wait in it, and is itself an alert for receiving
calls; opened, the same wait fires; a voicemail left too long fires the voicemail rule."""

import re

import pytest

from dashboard.testing.alerts import Rules, alert_env, posted, wait_for_post
from dashboard.testing.processes import wait_until
from dashboard.testing.receiver import Receiver
from dashboard.testing.servers import start_dashboard

WAIT = "Sales wait (test)"
CLOSED = "Calls while closed (test)"
VOICEMAIL = "Voicemail age (test)"
SALES_CLOSED = re.compile(r'data-name="sales"\s+data-open="0"')


@pytest.fixture
def inbound_rules_floor(sim_factory, tmp_path):
    sim = sim_factory("--faults", "--seed", "7")
    sim.control("inbound-reset")
    receiver = Receiver()
    env = {**alert_env(receiver), "INBOUND_POLL_S": "0.3"}
    server = start_dashboard(sim, tmp_path, env)
    rules = Rules(server)
    page = rules.page()
    assert "Calls while a queue is closed" in page and "Voicemail waiting too long" in page
    rules.delete_all()
    # No hold: it would fire at the very evaluation that finds the closed queue's calls.
    rules.add(WAIT, "longest_wait", scope="queue", scope_value="Sales", warn=2, alarm=4, hold_s=0)
    rules.add(CLOSED, "queue_closed_calls", alarm=1)
    rules.add(VOICEMAIL, "voicemail_age", warn=60, alarm=120)
    yield sim, server, receiver
    server.stop()
    receiver.close()


def test_a_closed_queue_stays_quiet_and_calls_reaching_it_are_an_alert(inbound_rules_floor):
    sim, server, receiver = inbound_rules_floor
    client = server.signed_in_client("alice")
    sim.control("inbound-schedule", schedule="Sales hours", open=False)
    # The schedule is read by polling, the queue's load comes as events: callers reaching a
    # queue the dashboard still knows as open would rightly fire the wait rule.
    wait_until(lambda: SALES_CLOSED.search(client.get("/queues/").text), 30, "Sales closed")
    sim.control("queue-load", queue="Sales", waiting=3, longest_wait_s=10)
    raised = wait_for_post(receiver, CLOSED, "raised", subject="Sales queue")
    assert raised.payload["level"] == "alarm"
    assert "Sales queue is receiving calls while its schedule says closed" in raised.payload["text"]
    assert "/queues/" in raised.payload["url"]
    # The wait is far past both limits, and has been for the whole evaluation: no alert.
    wait_until(lambda: "calls while closed" in client.get("/").text.lower(), 30)
    assert posted(receiver, WAIT) == []

    sim.control("inbound-schedule", schedule="Sales hours", open=True)
    wait_for_post(receiver, WAIT, "raised", subject="Sales queue")
    wait_for_post(receiver, CLOSED, "cleared", subject="Sales queue")


def test_a_voicemail_left_too_long_fires_its_rule(inbound_rules_floor):
    sim, server, receiver = inbound_rules_floor
    sim.control("voicemail", queue="Billing", age_s=3 * 60)
    raised = wait_for_post(receiver, VOICEMAIL, "raised")
    assert raised.payload["level"] == "alarm"
    assert "the oldest voicemail not handled is 3:00 old (limit 2:00)" in raised.payload["text"]
    assert raised.payload["url"].endswith("/voicemail/")
