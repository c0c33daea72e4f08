from django.apps import AppConfig


class InterventionsConfig(AppConfig):
    name = "dashboard.interventions"
    label = "interventions"
