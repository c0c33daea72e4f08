"""Settings from `.env` and the environment: `.env.example` works copied as it is, and
settings that would make every request fail or expose the server are refused at start."""

import json
import os

from dashboard.testing.processes import ROOT, run_manage

PROBE = (
    "from django.conf import settings as s; import json; print(json.dumps({"
    "'env': s.DJANGO_ENV, 'production': s.PRODUCTION, 'debug': s.DEBUG,"
    "'secret_key': s.SECRET_KEY, 'hosts': s.ALLOWED_HOSTS, 'org': s.ORGANIZATION_NAME,"
    "'secrets': s.UPSTREAM_WEBHOOK_SECRETS, 'base_url': s.UPSTREAM_BASE_URL,"
    "'simulator': s.UPSTREAM_USE_SIMULATOR, 'refresh': s.UPSTREAM_REFRESH_INTERVAL_S,"
    "'db': s.DATABASES['default']['ENGINE'], 'redis': s.REDIS_URL,"
    "'hasher': s.PASSWORD_HASHERS[0].rsplit('.', 1)[1]}))"
)
NAMES = {
    line.split("=", 1)[0]
    for line in (ROOT / ".env.example").read_text().splitlines()
    if "=" in line and not line.startswith("#")
}


def settings_with(tmp_path, env_file: str, **environment):
    """Start Django with `env_file` as its .env and only the given variables of ours."""
    path = tmp_path / ".env"
    path.write_text(env_file)
    env = {k: v for k, v in os.environ.items() if k not in NAMES}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    env.update(ENV_FILE=str(path), DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}")
    env.update(environment)
    return run_manage(env, "shell", "-c", PROBE)


def seen(result):
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_env_example_copied_as_it_is_gives_the_demo(tmp_path):
    s = seen(settings_with(tmp_path, (ROOT / ".env.example").read_text()))
    assert (s["env"], s["production"], s["debug"]) == ("demo", False, False)
    assert s["hosts"] == ["127.0.0.1", "localhost"]
    assert s["org"] == "Demo Contact Centre"
    assert s["secrets"] == []  # not the comment's text
    assert s["simulator"] is True and s["base_url"] == "http://127.0.0.1:8100/api"
    assert s["refresh"] == 30 and s["redis"] == "" and s["db"].endswith("sqlite3")


def test_an_inline_comment_after_production_keeps_production_on(tmp_path):
    example = (ROOT / ".env.example").read_text()
    env_file = example.replace("DJANGO_ENV=demo ", "DJANGO_ENV=production ", 1).replace(
        "SECRET_KEY=       ", "SECRET_KEY=k#not-a-comment-" + "x" * 40 + "  ", 1
    )
    assert "DJANGO_ENV=production     " in env_file
    s = seen(settings_with(tmp_path, env_file))
    assert s["production"] is True
    assert s["secret_key"] == "k#not-a-comment-" + "x" * 40  # a bare # is no comment


def test_webhook_secrets_are_split_and_trimmed(tmp_path):
    s = seen(settings_with(tmp_path, "UPSTREAM_WEBHOOK_SECRETS=first, second  # rotation\n"))
    assert s["secrets"] == ["first", "second"]


def test_an_unknown_django_env_is_refused(tmp_path):
    r = settings_with(tmp_path, "", DJANGO_ENV="prod")
    assert r.returncode != 0 and "DJANGO_ENV must be one of" in r.stderr


def test_production_refuses_an_empty_secret_key(tmp_path):
    r = settings_with(tmp_path, "", DJANGO_ENV="production", SECRET_KEY="")
    assert r.returncode != 0 and "SECRET_KEY" in r.stderr
    r = settings_with(tmp_path, "", DJANGO_ENV="production", SECRET_KEY="   ")
    assert r.returncode != 0 and "SECRET_KEY" in r.stderr


def test_production_refuses_debug(tmp_path):
    r = settings_with(tmp_path, "", DJANGO_ENV="production", SECRET_KEY="k" * 50, DEBUG="true")
    assert r.returncode != 0 and "DEBUG=true is refused in production" in r.stderr


def test_only_outside_production_may_the_password_hasher_be_named(tmp_path):
    md5 = "django.contrib.auth.hashers.MD5PasswordHasher"
    assert seen(settings_with(tmp_path, "", PASSWORD_HASHERS=md5))["hasher"] == "MD5PasswordHasher"
    production = settings_with(
        tmp_path, "", DJANGO_ENV="production", SECRET_KEY="k" * 50, PASSWORD_HASHERS=md5
    )
    assert seen(production)["hasher"] == "PBKDF2PasswordHasher"
