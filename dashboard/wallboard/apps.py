from django.apps import AppConfig


class WallboardConfig(AppConfig):
    name = "dashboard.wallboard"
    label = "wallboard"

    def ready(self):
        from .build import build_id

        build_id()  # computed once, at start: what this deploy serves
