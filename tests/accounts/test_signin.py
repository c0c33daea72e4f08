import re

from django.contrib.auth.models import User

from dashboard.testing.people import PASSWORD


def test_it_shows_the_signin_page(db, client):
    r = client.get("/accounts/login/")
    assert r.status_code == 200
    assert b"Sign in" in r.content
    assert b'name="csrfmiddlewaretoken"' in r.content


def test_it_signs_in_and_lands_on_the_live_view(bob, client):
    r = client.post("/accounts/login/", {"username": "bob", "password": PASSWORD})
    assert r.status_code == 302 and r["Location"] == "/"
    r = client.get("/")
    assert r.status_code == 200
    assert b"bob" in r.content


def test_it_refuses_a_wrong_password(bob, client):
    r = client.post("/accounts/login/", {"username": "bob", "password": "nope"})
    assert r.status_code == 200
    assert b"did not match" in r.content
    assert "_auth_user_id" not in client.session


def test_it_signs_out_with_post(bob, client_for):
    client = client_for(bob)
    r = client.post("/accounts/logout/")
    assert r.status_code in (200, 302)
    assert "_auth_user_id" not in client.session
    r = client.get("/")
    assert r.status_code == 302 and r["Location"].startswith("/accounts/login/")


def test_it_sends_signed_out_people_to_the_signin_page(db, client):
    r = client.get("/")
    assert r.status_code == 302
    assert r["Location"] == "/accounts/login/?next=/"


def test_it_refuses_a_signed_in_user_without_a_role(dave, client_for):
    r = client_for(dave).get("/")
    assert r.status_code == 403


def test_it_keeps_the_admin_for_managers(alice, bob, client):
    client.force_login(bob)
    assert client.get("/admin/").status_code == 403
    client.force_login(alice)
    r = client.get("/admin/")
    assert r.status_code == 200
    assert User.objects.get(username="alice").is_staff is False  # role, not the staff flag


def test_it_names_the_role_in_the_header(alice, client_for):
    r = client_for(alice).get("/")
    assert re.search(rb"alice\s*\xc2\xb7\s*Manager", r.content)
