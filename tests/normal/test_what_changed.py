"""What changed, as the bridge works it out for the live view's and the wallboards'
panel, from days of known shape (dashboard/testing/normal_days.py): a normal day reports
nothing; a queue surge is reported in the first evaluation after its first slot ends,
the service level's first cause the calls offered and, within them, the Sales queue; a
team pausing is reported with the agents' time first and the team's agents named; a
queue under its goal is a change of its own; too short or too noisy a history says so."""

from datetime import datetime, timedelta

from dashboard.inbound.models import QueueBaseline, QueueSlot
from dashboard.normal.panel import Away, evaluate
from dashboard.testing.normal_days import PLANS, SALES, rows, slot, write


def hour_of(when: datetime) -> float:
    return when.hour + when.minute / 60


def at(zone, hour: float) -> datetime:
    """Today at `hour` (wall clock)."""
    today = datetime.now(zone).date()
    return datetime.combine(today, datetime.min.time(), zone) + timedelta(hours=hour)


def changed(what: dict, key: str) -> dict:
    found = [c for c in what["changes"] if c["key"] == key]
    assert len(found) == 1, what["changes"]
    return found[0]


def test_a_normal_day_reports_nothing(zone, db):
    now = datetime.now(zone)
    write(rows(zone, now, until=hour_of(now)))
    what = evaluate(now, [], PLANS)
    assert what["ready"] and what["note"] == "" and what["changes"] == []


def test_a_queue_surge_is_reported_in_one_evaluation_with_its_queue_first(zone, db):
    now = datetime.now(zone)
    surge = hour_of(now) // 1 - 1  # a whole hour, an hour or more ago

    def shape(hour, weeks_ago):
        if weeks_ago == 0 and hour >= surge:
            return slot(80, sl=(12, 20), sales=60)
        return None

    write(rows(zone, now, until=hour_of(now), shape=shape))
    # While the surge's first slot is under way, nothing is judged yet;
    assert evaluate(at(zone, surge + 0.24), [], PLANS)["changes"] == []
    # the first evaluation after it ended reports it.
    what = evaluate(at(zone, surge + 0.25) + timedelta(seconds=6), [], PLANS)
    since = f"{int(surge):02d}:00"
    sl = changed(what, "service_level")
    assert sl["sentence"] == f"Service level 90% → 60% since {since}"
    assert sl["where"] == "below its normal band 85% – 95%" and sl["ongoing"]
    first = sl["causes"][0]
    assert (first["text"], first["share"]) == ("calls offered 100% above normal", 100)
    queue = first["details"][0]
    assert queue["text"] == "Sales queue offered 60 against a normal 19.5 (208% above normal)"
    assert (queue["link"], queue["share"]) == (f"/queues/{SALES}/", 100)
    assert len(first["details"]) == 1  # Care was offered its normal
    offered = changed(what, "offered")
    assert offered["sentence"] == f"Calls offered 40 → 80 since {since}"
    # Calls are agents' time × calls per agent hour: the same time, twice the rate, and
    # within it the campaign that dialled twice its normal.
    rate = offered["causes"][0]
    assert (rate["text"], rate["share"]) == ("calls per agent hour 100% above normal", 100)
    assert rate["details"][0]["link"] == "/campaigns/k1/"
    # Sales' service level fell below its own goal (70%) in the same slot.
    goal = changed(what, f"goal:{SALES}")
    assert goal["sentence"] == f"Sales service level 90% → 60% since {since}"
    assert goal["where"] == "below its goal 70%"
    assert goal["causes"][0]["text"] == "its calls offered 208% above normal"
    # Later evaluations say the same of the run, to its last whole slot.
    later = evaluate(now, [], PLANS)
    assert changed(later, "service_level")["sentence"] == sl["sentence"]
    assert [c["since"] for c in later["changes"]] == [since] * len(later["changes"])


def test_a_team_pausing_is_reported_with_agents_time_first_and_its_agents(zone, db):
    now = datetime.now(zone)
    pause = hour_of(now) // 1 - 1

    def shape(hour, weeks_ago):  # a third of the agents' time gone; the rest busier
        if weeks_ago == 0 and hour >= pause:
            return slot(40, agents_s=6000.0, busy=1.0, sl=(10, 20))
        return None

    write(rows(zone, now, until=hour_of(now), shape=shape))
    paused_at = at(zone, pause + 5 / 60)
    names = ["Ana Silva", "Ben Okafor", "Chen Wei", "Dora Lind"]
    away = [
        Away(f"a{n}", name, "Sales North", "paused", paused_at + timedelta(seconds=n))
        for n, name in enumerate(names)
    ]
    away.append(Away("b1", "Eve Long", "Care East", "paused", at(zone, 7)))  # on a long break
    what = evaluate(at(zone, pause + 0.25) + timedelta(seconds=6), away, PLANS)
    since = f"{int(pause):02d}:00"
    sl = changed(what, "service_level")
    assert sl["sentence"] == f"Service level 90% → 50% since {since}"
    first = sl["causes"][0]
    assert first["text"] == "agents' time signed in 33% below normal" and first["share"] == 100
    team = first["details"]
    assert len(team) == 1, team  # the long break began before: not a cause
    assert team[0]["text"] == (
        f"4 agents of Sales North paused since {int(pause):02d}:05 "
        "(Ana Silva, Ben Okafor, Chen Wei, …)"
    )
    assert team[0]["link"] == "/?teams=all&team=Sales+North"
    assert [(a["text"], a["link"]) for a in team[0]["details"]] == [
        (name, f"/agents/a{n}/") for n, name in enumerate(names)
    ]
    assert all(c["key"] != "offered" for c in what["changes"])  # offered stayed normal


def test_queue_slots_before_the_days_first_read_are_unknown_not_zero(zone, db):
    """Half the calls from an hour ago, every one answered in time: the service level rose
    because fewer calls were offered. The dashboard first read its queues after that, so
    their morning is whole in their baseline and their slots count from the first whole
    slot after the read: no queue is said to have been offered 0 calls before it."""
    now = datetime.now(zone)
    drop = hour_of(now) // 1 - 1

    def shape(hour, weeks_ago):
        return slot(20, sl=(20, 20)) if weeks_ago == 0 and hour >= drop else None

    write(rows(zone, now, until=hour_of(now), shape=shape))
    read_at = at(zone, drop + 0.5) + timedelta(minutes=7)
    QueueSlot.objects.filter(start__gte=at(zone, 0), start__lt=read_at).delete()
    for queue in set(QueueSlot.objects.values_list("queue_id", flat=True)):
        QueueBaseline.objects.create(queue_id=queue, day=at(zone, 0), read_at=read_at)
    what = evaluate(at(zone, drop + 0.25) + timedelta(seconds=6), [], PLANS)
    sl = changed(what, "service_level")
    assert sl["sentence"] == f"Service level 90% → 100% since {int(drop):02d}:00"
    offered = [c for c in sl["causes"] if c["text"].startswith("calls offered")]
    assert offered and offered[0]["text"] == "calls offered 50% below normal", sl["causes"]
    assert offered[0]["details"] == []  # not known per queue before the first read


def test_too_short_a_history_says_so_and_invents_no_band(zone, db):
    now = datetime.now(zone)
    write(rows(zone, now, weeks=(1, 2), until=hour_of(now), shape=lambda h, w: w == 0 and slot(80)))
    what = evaluate(now, [], PLANS)
    assert not what["ready"] and what["changes"] == []
    assert what["note"] == "No normal yet: the dashboard holds 2 of the 3 same weekdays it needs."


def test_a_figure_too_noisy_at_this_time_says_so_instead_of_a_change(zone, db):
    now = datetime.now(zone)
    calls = {1: 10, 2: 40, 3: 80, 4: 120, 0: 300}  # weeks that disagree, and an odd today
    write(rows(zone, now, until=hour_of(now), shape=lambda h, w: slot(calls[w])))
    what = evaluate(now, [], PLANS)
    assert what["note"] == "Too noisy to judge at this time of day: Calls offered, Calls completed."
    assert {c["key"] for c in what["changes"]} & {"offered", "completed"} == set()
