"""`manage.py purge_expired`: what the bridge does daily (retention.py), on demand."""

from django.conf import settings
from django.core.management.base import BaseCommand

from dashboard.drilldown.retention import purge


class Command(BaseCommand):
    help = "Delete transcripts and call records older than RETENTION_DAYS (or --days)."

    def add_arguments(self, parser):
        parser.add_argument("--days", type=int, default=settings.RETENTION_DAYS)

    def handle(self, days, **options):
        if days < 1:
            raise SystemExit("--days must be at least 1.")
        counts = purge(days)
        summary = ", ".join(f"{n} {what}" for what, n in counts.items())
        self.stdout.write(f"Purged what is older than {days} days: {summary}.")
