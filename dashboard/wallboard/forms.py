from datetime import timedelta

from django import forms
from django.utils import timezone

from .models import PANELS, KioskLink

LONGEST = timedelta(days=366)


class LinkForm(forms.ModelForm):
    panels = forms.MultipleChoiceField(
        choices=PANELS,
        widget=forms.CheckboxSelectMultiple,
        initial=[key for key, _ in PANELS],
        help_text="They take turns on the screen, in this order.",
    )
    expires_at = forms.DateTimeField(
        label="Expires",
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
    )

    class Meta:
        model = KioskLink
        fields = ["name", "panels", "rotation_s", "expires_at"]
        widgets = {"rotation_s": forms.NumberInput(attrs={"min": 5, "max": 600})}

    def clean_panels(self):
        chosen = set(self.cleaned_data["panels"])
        return [key for key, _ in PANELS if key in chosen]

    def clean_expires_at(self):
        when = self.cleaned_data["expires_at"]
        now = timezone.now()
        if when <= now:
            raise forms.ValidationError("Choose a time in the future.")
        if when > now + LONGEST:
            raise forms.ValidationError("A link lasts at most a year; make a new one then.")
        return when


def initial() -> dict:
    return {"expires_at": timezone.localtime() + timedelta(days=30), "rotation_s": 15}
