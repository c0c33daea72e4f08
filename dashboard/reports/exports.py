"""The campaigns pages' tables as CSV downloads (dashboard/shared/export.py)."""

from dashboard.shared.export import csv_response, no_such_table
from dashboard.shared.filling import filling_pct, still_filling
from dashboard.shared.today import start_of_today

from .metrics import outcome_mix
from .models import CampaignSlot

CAMPAIGN_TABLES = ("slots", "outcomes")


def campaigns(rows: list[dict]):
    """The campaigns list, as the page shows it (the service's last pull)."""
    header = [
        "Campaign id",
        "Campaign",
        "Status",
        "Dial mode",
        "Contacts",
        "Dialed",
        "Progress % (dialed ÷ contacts)",
        "Connected",
        "Connect rate % (connected ÷ dialed)",
        "Appointments",
        "Conversion % (booked ÷ connected)",
    ]
    keys = ["id", "name", "status", "dial_mode", "total", "dialed", "progress_pct"]
    keys += ["connected", "connect_rate_pct", "booked", "conversion_pct"]
    return csv_response("campaigns", header, ([r[k] for k in keys] for r in rows))


def campaign_day(campaign_id: str, table: str):
    """A campaign's day: its 15-minute slots (`slots`, the chart's), or its outcome mix."""
    since = start_of_today()
    if table == "slots":
        slots = CampaignSlot.objects.filter(campaign_id=campaign_id, start__gte=since)
        return csv_response(
            f"campaign-{campaign_id}-slots",
            ["Slot start", "Dial attempts", "Connects", "Appointments"],
            ((s.start, s.dialed, s.connected, s.booked) for s in slots.order_by("start")),
        )
    if table == "outcomes":
        # today's completed calls are partial meanwhile
        refused = still_filling("the outcome mix", filling_pct())
        if refused:
            return refused
        return csv_response(
            f"campaign-{campaign_id}-outcomes",
            ["Outcome", "Completed calls", "Share %"],
            ((o["outcome"], o["n"], o["pct"]) for o in outcome_mix(campaign_id, since)),
        )
    return no_such_table(table, CAMPAIGN_TABLES)
