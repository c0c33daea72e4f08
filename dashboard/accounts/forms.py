"""The settings' forms: each bad input is refused with a sentence saying what to change."""

import re
from urllib.parse import parse_qsl, urlencode

from django import forms

from . import scope
from .models import THEMES, SavedView

# The live view's filters (templates/live/home.html, static/js/live/grid.js) and what each takes:
# `teams` is the page's scope (scope.py), a list of teams or "all".
FILTERS = {
    "teams": re.compile(r"^[^\x00-\x1f<>]{1,500}$"),
    "team": re.compile(r"^[^\x00-\x1f<>]{1,100}$"),
    "state": re.compile(r"^[a-z_]{1,20}$"),
    "q": re.compile(r"^[^\x00-\x1f]{1,100}$"),
    "sort": re.compile(r"^(time)$"),
    "density": re.compile(r"^(dense)$"),
}
MAX_VIEWS = 30


class ThemeForm(forms.Form):
    theme = forms.ChoiceField(
        choices=THEMES,
        error_messages={"invalid_choice": "Choose a theme: as the system, light or dark."},
    )


class TeamsForm(forms.Form):
    """The teams a person runs: those the live floor knows, and those they chose before
    (a team may have no agent signed in right now)."""

    teams = forms.MultipleChoiceField(
        required=False,
        widget=forms.CheckboxSelectMultiple,
        error_messages={"invalid_choice": "“%(value)s” is not a team on the floor."},
    )

    def __init__(self, *args, known=(), chosen=(), **kwargs):
        super().__init__(*args, initial={"teams": list(chosen)}, **kwargs)
        self.fields["teams"].choices = [(t, t) for t in sorted({*known, *chosen})]


DIAL = re.compile(r"^(\+[1-9]\d{6,14}|sip:[^@\s<>\"]+@[^@\s<>\"]+)$")


class MonitorDialForm(forms.Form):
    """Where the service rings this person to listen to, whisper in or barge into a call."""

    monitor_dial = forms.CharField(
        max_length=200,
        strip=True,
        error_messages={
            "required": "Give the number or SIP address the service should ring.",
            "max_length": "That address is too long (200 characters at most).",
        },
    )

    def clean_monitor_dial(self):
        value = self.cleaned_data["monitor_dial"].replace(" ", "")
        if not DIAL.match(value):
            raise forms.ValidationError(
                "Give a phone number in international form (for example +447700900123) "
                "or a SIP address (for example sip:ana@pbx.example.com)."
            )
        return value


class SavedViewForm(forms.Form):
    name = forms.CharField(
        max_length=60,
        strip=True,
        error_messages={
            "required": "Give the view a name.",
            "max_length": "A view's name is at most 60 characters.",
        },
    )
    query = forms.CharField(required=False, max_length=500, strip=True)

    def __init__(self, *args, user=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_name(self):
        name = self.cleaned_data["name"]
        if SavedView.objects.filter(user=self.user, name__iexact=name).exists():
            raise forms.ValidationError(f"You already have a view named “{name}”.")
        if SavedView.objects.filter(user=self.user).count() >= MAX_VIEWS:
            raise forms.ValidationError(
                f"You have {MAX_VIEWS} views, the most one person keeps: delete one first."
            )
        return name

    def clean_query(self):
        """The filters, checked one by one and written back in a fixed order."""
        pairs = parse_qsl(self.cleaned_data["query"].lstrip("?"), keep_blank_values=False)
        seen = {}
        for key, value in pairs:
            if key not in FILTERS:
                raise forms.ValidationError(
                    f"“{key}” is not a filter of the live view (they are {', '.join(FILTERS)})."
                )
            if key in seen:
                raise forms.ValidationError(f"The filter “{key}” is given twice.")
            if not FILTERS[key].match(value):
                raise forms.ValidationError(f"“{value}” is not a value the filter {key} takes.")
            seen[key] = (scope.key(scope.parse(value)) or scope.ALL) if key == "teams" else value
        return urlencode([(key, seen[key]) for key in FILTERS if key in seen])
