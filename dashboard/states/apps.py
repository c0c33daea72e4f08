from django.apps import AppConfig


class StatesConfig(AppConfig):
    name = "dashboard.states"
    label = "states"
