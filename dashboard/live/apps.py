from django.apps import AppConfig
from django.core.signals import got_request_exception


class LiveConfig(AppConfig):
    name = "dashboard.live"
    label = "live"

    def ready(self):
        from dashboard.shared import metrics

        got_request_exception.connect(metrics.request_failed, dispatch_uid="metrics-store-errors")
