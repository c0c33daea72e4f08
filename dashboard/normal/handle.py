"""Each campaign's average handle time per 15 minutes against its own normal: the talk
time of the calls its agents handled (`CompletedCall`, from the service's call_completed
webhooks and the history's calls; calls the AI handled left out), today and on the same
weekday of the last four weeks. The floor's handle time is split by campaign from it: a
campaign's part of a change is its calls × how far its handle time moved."""

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from django.db.models import Count, Max, Q

from dashboard.live.state import slot_of
from dashboard.quality.models import CompletedCall
from dashboard.shared import summaries
from dashboard.shared.charts import on_day

from .floor import NONE, DayNormal, midnight, past_days
from .method import Normal, normal_of

LEAST_S = 30.0  # a campaign's band is never narrower than this either side


@dataclass
class Handled:
    """A campaign's calls handled and their talk time in one slot."""

    calls: int = 0
    talk_s: float = 0.0

    @property
    def aht_s(self) -> float | None:
        return self.talk_s / self.calls if self.calls else None


@dataclass
class CampaignHandles:
    """Campaign -> today's slot -> what was handled, and each slot's normal handle time."""

    today: dict[str, dict[datetime, Handled]] = field(default_factory=dict)
    normals: dict[str, dict[datetime, Normal]] = field(default_factory=dict)

    def normal(self, campaign: str, at: datetime) -> Normal:
        return self.normals.get(campaign, {}).get(at, NONE)

    def value(self, campaign: str, at: datetime) -> float | None:
        got = self.today.get(campaign, {}).get(at)
        return got.aht_s if got else None


def _handled(day: date, today: date) -> dict[str, dict[datetime, Handled]]:
    """Each campaign's calls handled on `day`, per slot moved onto today's."""
    rows = (
        CompletedCall.objects.filter(
            completed_at__gte=midnight(day), completed_at__lt=midnight(day + timedelta(days=1))
        )
        .exclude(agent_id="")
        .exclude(campaign_id="")
        .values_list("campaign_id", "completed_at", "duration_s")
    )
    out: dict[str, dict[datetime, Handled]] = {}
    for campaign, at, talk_s in rows:
        slot = out.setdefault(campaign, {}).setdefault(slot_of(on_day(at, today)), Handled())
        slot.calls += 1
        slot.talk_s += talk_s
    return out


def _fingerprint(today: date) -> tuple:
    """What the same weekdays before `today` hold, in one indexed query: a call added
    changes it."""
    days = Q()
    for day in past_days(today):
        days |= Q(completed_at__gte=midnight(day), completed_at__lt=midnight(day + timedelta(1)))
    return (today, *CompletedCall.objects.filter(days).aggregate(Count("id"), Max("id")).values())


_past: dict = {}  # fingerprint -> each campaign's normal per slot, the last worked out


def _normals(today: date, days: list[date], slots: list[datetime]) -> dict:
    by_day = {day: _handled(day, today) for day in days}
    campaigns = {c for handled in by_day.values() for c in handled}
    out = {}
    for campaign in campaigns:
        held = [day for day in days if campaign in by_day[day]]
        out[campaign] = {}
        for at in slots:
            samples = {day: by_day[day][campaign].get(at, Handled()).aht_s for day in held}
            out[campaign][at] = normal_of(samples, LEAST_S)
    return out


def handles(normal: DayNormal) -> CampaignHandles:
    """Today's handle times by campaign and their normals (the past part worked out again
    only when the weeks before hold other calls); kept on `normal` once worked out."""
    if normal.handles is None:
        key = _fingerprint(normal.today)
        if key not in _past:
            _past.clear()
            _past[key] = _normals(normal.today, normal.days, normal.slots)
        normal.handles = CampaignHandles(_handled(normal.today, normal.today), _past[key])
    return normal.handles


def campaign_names() -> dict[str, str]:
    """Each campaign's name as the dashboard last read the campaigns (its id otherwise)."""
    return {x.id: x.name for x in summaries.load("campaigns")["data"] or []}


def minutes(seconds: float) -> str:
    seconds = round(abs(seconds))
    return f"{seconds // 60}:{seconds % 60:02d}"
