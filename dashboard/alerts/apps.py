from django.apps import AppConfig


class AlertsConfig(AppConfig):
    name = "dashboard.alerts"
    label = "alerts"

    def ready(self):
        from . import signals  # noqa: F401  (a rule saved anywhere tells the engine)
