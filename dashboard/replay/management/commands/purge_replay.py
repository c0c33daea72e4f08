from django.core.management.base import BaseCommand

from dashboard.replay.retention import purge


class Command(BaseCommand):
    help = "Purge the floor replay's days older than REPLAY_DAYS (or --days), today counted."

    def add_arguments(self, parser):
        parser.add_argument("--days", type=int, default=None)

    def handle(self, *args, days=None, **options):
        counts = purge(days)
        self.stdout.write(", ".join(f"{n} {what}" for what, n in counts.items()) + " purged")
