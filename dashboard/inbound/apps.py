from django.apps import AppConfig


class InboundConfig(AppConfig):
    name = "dashboard.inbound"
    label = "inbound"
