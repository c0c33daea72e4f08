from django.apps import AppConfig


class MainConfig(AppConfig):
    name = "dashboard.main"
    label = "main"

    def ready(self):
        """The normal's bands on the campaign's and the QA page's charts (the rooms that
        make those charts may not import the normal's)."""
        from dashboard.normal.on_pages import campaign_over, qa_over
        from dashboard.shared.overlays import lay_over

        lay_over("campaign", campaign_over)
        lay_over("qa", qa_over)
