from django.apps import AppConfig


class ReplayConfig(AppConfig):
    name = "dashboard.replay"
    label = "replay"
