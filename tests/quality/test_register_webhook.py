"""register_webhook against the simulated tenant, errors included."""

import re
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings

from dashboard.testing.processes import wait_until
from dashboard.testing.receiver import Receiver


def upstream(sim, email=None):
    return override_settings(
        UPSTREAM_BASE_URL=sim.base_url,
        UPSTREAM_AUTH_URL=sim.auth_url,
        UPSTREAM_ANON_KEY=sim.anon_key,
        UPSTREAM_EMAIL=email or sim.email_a,
        UPSTREAM_PASSWORD=sim.password,
    )


def run(*args):
    out = StringIO()
    call_command("register_webhook", *args, stdout=out)
    return out.getvalue()


def test_it_creates_tests_and_replays(simulator):
    receiver = Receiver()
    try:
        with upstream(simulator):
            out = run("--url", receiver.url)
            hook_id = re.search(r"Webhook (\S+) created", out).group(1)
            assert "UPSTREAM_WEBHOOK_SECRETS" in out and "call_completed" in out
            assert "Sample delivery requested" in run("--test", hook_id)
        token = simulator.sign_in()["access_token"]
        log = wait_until(
            lambda: simulator.get(f"/webhooks/outbound/{hook_id}/deliveries", token).json()["data"],
            10,
            "the sample delivery in the webhook's log",
        )
        with upstream(simulator):
            assert "replayed" in run("--replay", hook_id, log[0]["id"])
            with pytest.raises(CommandError, match="no delivery"):
                run("--replay", hook_id, "no-such-delivery")
    finally:
        receiver.close()


def test_it_says_plainly_when_the_role_is_too_narrow(module_simulator):
    with (
        upstream(module_simulator, module_simulator.email_agent),
        pytest.raises(CommandError, match="403 on POST /webhooks/outbound.*'agent'"),
    ):
        run("--url", "http://127.0.0.1:9/webhooks/service/")
