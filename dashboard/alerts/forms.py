"""The Managers' rule form: every mistake named in words, beside the field it is about.
Limits read and are written as people say them: a duration `0:20` or `10:00`, a share
`80%`, a count `3`."""

import re

from django import forms

from .models import AGENT_STATES, ALL, METRICS, SCOPES, Rule, limit_text

MAX_S = 24 * 3600
DURATION = re.compile(r"^(?:(\d+):)?(\d+):(\d{1,2})$")
LIMIT_HELP = "a duration like 0:20 or 10:00, a share like 80%, or a count like 3"


def parse_limit(text: str, unit: str, label: str) -> float | None:
    """A limit as written, in the metric's unit; a sentence when it cannot be one."""
    text = text.strip().replace(" ", "")
    if not text:
        return None
    if unit == "s" and (m := DURATION.match(text)):
        hours, minutes, seconds = int(m[1] or 0), int(m[2]), int(m[3])
        if seconds >= 60 or (m[1] and minutes >= 60):
            raise forms.ValidationError("Write a duration as 1:30 or 1:05:00.")
        return float(hours * 3600 + minutes * 60 + seconds)
    number = text[:-1] if unit == "%" and text.endswith("%") else text
    try:
        value = float(number)
    except ValueError:
        what = {"s": "a duration like 0:20 or 10:00 (or seconds)", "%": "a share like 80%"}
        raise forms.ValidationError(
            f"“{label}” takes {what.get(unit, f'a number of {unit}')}."
        ) from None
    if value != value or value in (float("inf"), float("-inf")):
        raise forms.ValidationError("Write a finite number.")
    return value


class RuleForm(forms.ModelForm):
    class Meta:
        model = Rule
        fields = [
            "name",
            "metric",
            "scope",
            "scope_value",
            "warn",
            "alarm",
            "hold_s",
            "clear_s",
            "alarm_agents",
            "alarm_share_pct",
            "enabled",
        ]

    warn = forms.CharField(label="Warning limit", required=False, help_text=LIMIT_HELP)
    alarm = forms.CharField(label="Alarm limit", required=False, help_text=LIMIT_HELP)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        rule = self.instance
        if rule.pk and not self.is_bound:
            self.initial["warn"] = limit_text(rule.warn, rule.unit)
            self.initial["alarm"] = limit_text(rule.alarm, rule.unit)

    def clean(self):
        data = super().clean()
        metric, scope = data.get("metric"), data.get("scope")
        value = (data.get("scope_value") or "").strip()
        data["scope_value"] = value
        if metric not in METRICS:
            data["warn"] = data["alarm"] = None
            return data  # the field's own error says so
        label, unit, low_is_bad, scopes, _ = METRICS[metric]
        for name in ("warn", "alarm"):
            try:
                data[name] = parse_limit(data.get(name) or "", unit, label)
            except forms.ValidationError as error:
                self.add_error(name, error)
                data[name] = None
        unreadable = "warn" in self.errors or "alarm" in self.errors
        warn, alarm = data.get("warn"), data.get("alarm")
        group = (data.get("alarm_agents"), data.get("alarm_share_pct"))
        if metric not in AGENT_STATES and any(x is not None for x in group):
            for name, x in zip(("alarm_agents", "alarm_share_pct"), group, strict=True):
                if x is not None:
                    self.add_error(name, "Only rules about agents raise a team's alert.")
        share = data.get("alarm_share_pct")
        if share is not None and not 0 < share <= 100:
            self.add_error("alarm_share_pct", "A share of a team: more than 0, at most 100.")
        if scope and scope not in scopes:
            allowed = " or ".join(dict(SCOPES)[s].lower() for s in scopes)
            self.add_error("scope", f"“{label}” can only watch {allowed}.")
        elif scope and scope != ALL and not value:
            self.add_error("scope_value", f"Name the {scope} this rule watches.")
        elif scope == ALL and value:
            self.add_error("scope_value", "Leave this empty when the rule watches everything.")
        if warn is None and alarm is None and not unreadable:
            self.add_error("warn", "Give a warning limit, an alarm limit, or both.")
        for name, limit in (("warn", warn), ("alarm", alarm)):
            if limit is None:
                continue
            if limit < 0:
                self.add_error(name, "A limit cannot be negative.")
            elif unit == "%" and limit > 100:
                self.add_error(name, "Service level is a percentage: 0 to 100.")
            elif unit == "s" and limit > MAX_S:
                self.add_error(name, "At most a day (24:00:00).")
        if warn is not None and alarm is not None and warn >= 0 and alarm >= 0:
            if low_is_bad and alarm > warn:
                self.add_error(
                    "alarm",
                    f"For “{label}” low is bad: the alarm limit must be at or below the"
                    " warning limit.",
                )
            elif not low_is_bad and alarm < warn:
                self.add_error("alarm", "The alarm limit must be at or above the warning limit.")
        for name in ("hold_s", "clear_s"):
            if data.get(name) is not None and data[name] > MAX_S:
                self.add_error(name, "At most a day (86400 s).")
        return data
