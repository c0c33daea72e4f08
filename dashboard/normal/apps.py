from django.apps import AppConfig


class NormalConfig(AppConfig):
    name = "dashboard.normal"
    label = "normal"
