from django.apps import AppConfig


class MainConfig(AppConfig):
    name = "dashboard.main"
    label = "main"
