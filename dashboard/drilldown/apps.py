from django.apps import AppConfig


class DrilldownConfig(AppConfig):
    name = "dashboard.drilldown"
    label = "drilldown"
