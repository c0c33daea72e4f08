"""The Managers' rule form: every mistake named in words, beside the field it is about."""

from django import forms

from .models import ALL, METRICS, SCOPES, Rule

MAX_S = 24 * 3600


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
            "enabled",
        ]

    def clean(self):
        data = super().clean()
        metric, scope = data.get("metric"), data.get("scope")
        value = (data.get("scope_value") or "").strip()
        data["scope_value"] = value
        warn, alarm = data.get("warn"), data.get("alarm")
        if metric not in METRICS:
            return data  # the field's own error says so
        label, unit, low_is_bad, scopes, _ = METRICS[metric]
        if scope and scope not in scopes:
            allowed = " or ".join(dict(SCOPES)[s].lower() for s in scopes)
            self.add_error("scope", f"“{label}” can only watch {allowed}.")
        elif scope and scope != ALL and not value:
            self.add_error("scope_value", f"Name the {scope} this rule watches.")
        elif scope == ALL and value:
            self.add_error("scope_value", "Leave this empty when the rule watches everything.")
        if warn is None and alarm is None:
            self.add_error("warn", "Give a warning limit, an alarm limit, or both.")
        for name, limit in (("warn", warn), ("alarm", alarm)):
            if limit is None:
                continue
            if limit < 0:
                self.add_error(name, "A limit cannot be negative.")
            elif unit == "%" and limit > 100:
                self.add_error(name, "Service level is a percentage: 0 to 100.")
            elif unit == "s" and limit > MAX_S:
                self.add_error(name, "At most a day (86400 s).")
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
