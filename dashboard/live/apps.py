from django.apps import AppConfig


class LiveConfig(AppConfig):
    name = "dashboard.live"
    label = "live"
