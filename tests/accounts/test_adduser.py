import io

import pytest
from django.contrib.auth import authenticate as django_authenticate
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import RequestFactory


def authenticate(**credentials):
    """As the sign-in form does: with its request (django-axes needs one)."""
    return django_authenticate(RequestFactory().post("/accounts/login/"), **credentials)


pytestmark = pytest.mark.usefixtures("role_groups")


def run(*args):
    out = io.StringIO()
    call_command("adduser", *args, stdout=out)
    return out.getvalue()


def test_it_creates_a_user_with_a_role(db):
    out = run("erin", "--role", "supervisor", "--password", "long-enough-1")
    assert "Created erin with the Supervisor role" in out
    user = authenticate(username="erin", password="long-enough-1")
    assert list(user.groups.values_list("name", flat=True)) == ["Supervisor"]


def test_it_updates_role_and_password(db):
    run("erin", "--role", "supervisor", "--password", "long-enough-1")
    out = run("erin", "--role", "manager", "--password", "long-enough-2")
    assert "Updated erin" in out
    user = authenticate(username="erin", password="long-enough-2")
    assert list(user.groups.values_list("name", flat=True)) == ["Manager"]
    assert User.objects.filter(username="erin").count() == 1


def test_it_generates_and_prints_a_password_when_none_is_given(db):
    out = run("frank", "--role", "wallboard")  # stdin is not a terminal under pytest
    password = out.split("Password: ")[1].strip()
    assert authenticate(username="frank", password=password) is not None


def test_it_refuses_a_short_password(db):
    with pytest.raises(CommandError, match="at least 8"):
        run("gina", "--role", "manager", "--password", "short")
    assert not User.objects.filter(username="gina").exists()


def test_it_refuses_an_unknown_role(db):
    with pytest.raises(CommandError):
        run("gina", "--role", "admin", "--password", "long-enough-1")


@pytest.mark.parametrize("password", ["password", "12345678", "3141592653589"])
def test_it_refuses_a_common_or_numeric_password(db, password):
    with pytest.raises(CommandError, match="too common|entirely numeric"):
        run("hal", "--role", "manager", "--password", password)
    assert not User.objects.filter(username="hal").exists()
