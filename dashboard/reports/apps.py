from django.apps import AppConfig


class ReportsConfig(AppConfig):
    name = "dashboard.reports"
    label = "reports"
