from django.apps import AppConfig


class QualityConfig(AppConfig):
    name = "dashboard.quality"
    label = "quality"
