"""Create or update a person's account with exactly one role."""

import getpass
import secrets
import sys

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from dashboard.accounts.roles import GROUP_NAMES, MANAGER


class Command(BaseCommand):
    help = "Create or update a user with a role; prompts for, or generates, a password."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--role", required=True, choices=sorted(GROUP_NAMES))
        parser.add_argument("--password", help="omit to be prompted (or to get a generated one)")

    def handle(self, username, role, password, **options):
        username = username.strip()
        if not username or len(username) > 150:
            raise CommandError("USERNAME must be 1 to 150 characters.")
        generated = False
        if password is None:
            password, generated = self._ask_password()
        model = get_user_model()
        user = model.objects.filter(username=username).first()
        created = user is None
        user = user or model(username=username)
        try:
            validate_password(password, user)  # AUTH_PASSWORD_VALIDATORS, as the admin does
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from None
        user.set_password(password)
        user.is_active = True
        user.is_staff = role == MANAGER
        user.save()
        user.groups.set([Group.objects.get(name=GROUP_NAMES[role])])

        verb = "Created" if created else "Updated"
        self.stdout.write(f"{verb} {username} with the {GROUP_NAMES[role]} role.")
        if generated:
            self.stdout.write(f"Password: {password}")

    def _ask_password(self):
        if not (sys.stdin and sys.stdin.isatty()):
            return secrets.token_urlsafe(12), True
        first = getpass.getpass("Password (empty to generate one): ")
        if not first:
            return secrets.token_urlsafe(12), True
        if getpass.getpass("Password again: ") != first:
            raise CommandError("The passwords do not match.")
        return first, False
