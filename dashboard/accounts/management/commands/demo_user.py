"""Make sure the demo's sign-in exists and print it, so `make run` is one command."""

import io
import secrets
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from dashboard.accounts.roles import MANAGER

PASSWORD_FILE = Path(settings.BASE_DIR) / ".demo-password"


class Command(BaseCommand):
    help = "Create (or refresh) the demo Manager account and print its sign-in."

    def add_arguments(self, parser):
        parser.add_argument("--username", default="demo")

    def handle(self, username, **options):
        # The password is made once per checkout and kept beside it (git-ignored), so the
        # printed sign-in stays the same from one `make run` to the next.
        if PASSWORD_FILE.exists():
            password = PASSWORD_FILE.read_text().strip()
        else:
            password = secrets.token_urlsafe(9)
            PASSWORD_FILE.write_text(password + "\n")
            PASSWORD_FILE.chmod(0o600)
        call_command("adduser", username, role=MANAGER, password=password, stdout=io.StringIO())
        port = settings.DEMO_PORT
        self.stdout.write(
            "\n"
            f"  Dashboard:  http://127.0.0.1:{port}/\n"
            f"  Sign in as: {username}\n"
            f"  Password:   {password}\n"
        )
