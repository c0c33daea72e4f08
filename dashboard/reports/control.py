"""Starting and stopping a campaign, and marking a pending booking as handled.

A start or stop is asked of the service while the Manager waits (the pages' client: a
short timeout and one retry). Its answer is recorded as it came, who asked and when, and
shown as it is: only a 200 reads as done; a 409, a 403, a 404, a timeout say so. The
campaign's new status goes into the summaries at once and every viewer's list and page is
pushed, so nobody waits for the next refresh to see it.
"""

import logging

from channels.db import database_sync_to_async

from dashboard.shared import summaries
from dashboard.upstream import contract as c
from dashboard.upstream.errors import Conflict, Forbidden, NotOffered, UpstreamError
from dashboard.upstream.on_request import service

from .models import CampaignAction, HandledBooking
from .publish import campaign_changed

log = logging.getLogger("dashboard.reports.control")
DONE, REFUSED, FAILED = CampaignAction.DONE, CampaignAction.REFUSED, CampaignAction.FAILED
PAST = {"start": "started", "stop": "stopped"}


async def start_or_stop(user, campaign_id: str, action: str) -> CampaignAction:
    """Ask the service to start or stop the campaign; the recorded action, with its answer."""
    entry = await database_sync_to_async(summaries.load)("campaigns")
    shown = next((x for x in entry["data"] or [] if x.id == campaign_id), None)
    campaign, (outcome, status, answer) = await ask(campaign_id, action)
    record = await CampaignAction.objects.acreate(
        campaign_id=campaign_id,
        campaign_name=(campaign or shown).name if campaign or shown else "",
        action=action,
        status_before=shown.status if shown else "",
        by=user,
        outcome=outcome,
        http_status=status,
        answer=answer,
    )
    log.info("%s asked to %s campaign %s: %s", user.get_username(), action, campaign_id, answer)
    if campaign is not None and entry["data"] is not None:
        rows = [campaign if x.id == campaign_id else x for x in entry["data"]]
        await summaries.replace_data("campaigns", rows)
    await database_sync_to_async(campaign_changed)(campaign_id)
    return record


async def ask(campaign_id: str, action: str) -> tuple[c.Campaign | None, tuple]:
    """The campaign as the service now has it (on a 200 only), and (outcome, HTTP status,
    the answer in words)."""
    rest = service()
    call = rest.start_campaign if action == "start" else rest.stop_campaign
    try:
        campaign = await call(campaign_id)
    except Conflict as refused:
        return None, (REFUSED, 409, str(refused))
    except Forbidden as refused:
        too_narrow = f"403: the service user's role ('{refused.role}') is too narrow to {action} it"
        return None, (REFUSED, 403, too_narrow)
    except NotOffered:
        return None, (REFUSED, 405, "405: this service does not offer starting and stopping")
    except UpstreamError as failed:  # timeouts, 5xx, sign-in, an answer we cannot read
        return None, (FAILED, None, str(failed))
    if campaign is None:
        unknown = "404: the service has no such campaign, or does not offer starting and stopping"
        return None, (REFUSED, 404, unknown)
    return campaign, (DONE, 200, f"200: the campaign is {campaign.status} now")


def in_words(record: CampaignAction) -> str:
    """What the Manager is told: done only on a 200, and the service's answer as it is."""
    name = record.campaign_name or record.campaign_id
    if record.outcome == DONE:
        return f"{PAST[record.action].capitalize()} “{name}”. The service answered {record.answer}."
    if record.outcome == REFUSED:
        return f"“{name}” was not {PAST[record.action]}. The service answered {record.answer}."
    return (
        f"The service did not confirm: {record.answer}. Whether “{name}” was "
        f"{PAST[record.action]} shows at the next refresh."
    )


def mark_handled(user, campaign_id: str, booking_id: str, note: str) -> str:
    """Record that a pending booking was handled, with what was done; "" when recorded,
    else why not."""
    if not note:
        return "Marking a booking as handled needs a note of what was done."
    bookings = summaries.load("pending_bookings")["data"] or []
    if not any(x.id == booking_id and x.campaign_id == campaign_id for x in bookings):
        return "This booking is not among the campaign's pending bookings as last pulled."
    _, made = HandledBooking.objects.get_or_create(
        booking_id=booking_id, defaults={"campaign_id": campaign_id, "note": note, "by": user}
    )
    if not made:
        return "This booking is already marked as handled."
    campaign_changed(campaign_id)
    return ""
