"""The people who sign in, made straight in the test database (one per role)."""

from django.contrib.auth.models import Group, User

from dashboard.accounts.roles import GROUP_NAMES

PASSWORD = "correct horse battery"


def make_user(username, role=None):
    user = User.objects.create_user(username, password=PASSWORD)
    if role:
        # get_or_create: transactional tests flush the groups the data migration made.
        user.groups.add(Group.objects.get_or_create(name=GROUP_NAMES[role])[0])
    return user
