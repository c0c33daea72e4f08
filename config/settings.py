"""Settings, read from the environment (see `.env.example`).

The defaults run the whole demo on one machine: SQLite, the in-memory channel layer and
the local-memory cache. `DATABASE_URL` and `REDIS_URL` switch to PostgreSQL and Redis;
`DJANGO_ENV=production` turns on the production security settings.
"""

import os
import re
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

import environ
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
ENVIRONMENTS = ("demo", "production")


def read_env_file(path: Path):
    """Add a `.env` file's `KEY=value` lines to the environment (which wins over them).
    As in a shell, a `#` after whitespace starts a comment, so `.env.example` works copied
    as it is, and a bare `#` inside a secret stays; quotes keep everything inside them."""
    if not path.exists():
        return
    for number, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.removeprefix("export ").partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key.isidentifier():
            raise ImproperlyConfigured(f"{path.name}, line {number}: expected KEY=value")
        if value[:1] in ("'", '"') and value.find(value[0], 1) > 0:
            value = value[1 : value.find(value[0], 1)]
        else:
            value = re.split(r"(?:^|\s)#", value, maxsplit=1)[0].strip()
        os.environ.setdefault(key, value)


# ENV_FILE names another file than the `.env` beside manage.py (the environment wins anyway).
read_env_file(Path(os.environ.get("ENV_FILE") or BASE_DIR / ".env"))
env = environ.Env()
# Values trimmed, and an empty one counts as unset: `.env.example` lists every name.
env.ENVIRON = {k: v.strip() for k, v in os.environ.items() if v.strip()}


def env_list(name: str, default: list[str]) -> list[str]:
    """A comma-separated list; `a, b` gives "a" and "b", not "a" and " b"."""
    return [item.strip() for item in env.list(name, default=default) if item.strip()]


DJANGO_ENV = env("DJANGO_ENV", default="demo")
if DJANGO_ENV not in ENVIRONMENTS:
    raise ImproperlyConfigured(f"DJANGO_ENV must be one of {ENVIRONMENTS}, not {DJANGO_ENV!r}")
PRODUCTION = DJANGO_ENV == "production"
DEBUG = env.bool("DEBUG", default=False)
if PRODUCTION and DEBUG:
    raise ImproperlyConfigured("DEBUG=true is refused in production: it shows settings to anyone")
SECRET_KEY = (
    env("SECRET_KEY")  # set and not empty, or Django refuses to start
    if PRODUCTION
    else env("SECRET_KEY", default="demo-only-insecure-key-set-SECRET_KEY-in-production")
)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

ORGANIZATION_NAME = env("ORGANIZATION_NAME", default="Demo Contact Centre")
DEMO_PORT = env.int("PORT", default=8000)
# Open wallboards reload when this changes; empty: a hash of the static files and templates.
BUILD_ID = env("BUILD_ID", default="")

# The service (upstream). With UPSTREAM_BASE_URL unset, the built-in simulated tenant on
# SIMULATOR_PORT stands in, with its default credentials.
SIMULATOR_PORT = env.int("SIMULATOR_PORT", default=8100)
UPSTREAM_USE_SIMULATOR = not env("UPSTREAM_BASE_URL", default="")
_simulator = f"http://127.0.0.1:{SIMULATOR_PORT}"
UPSTREAM_BASE_URL = env("UPSTREAM_BASE_URL", default=f"{_simulator}/api")
UPSTREAM_AUTH_URL = env("UPSTREAM_AUTH_URL", default=_simulator)
UPSTREAM_ANON_KEY = env("UPSTREAM_ANON_KEY", default="sim-anon-key")
UPSTREAM_EMAIL = env("UPSTREAM_EMAIL", default="svc-a@sim.local")
UPSTREAM_PASSWORD = env("UPSTREAM_PASSWORD", default="sim-password")
UPSTREAM_WEBHOOK_SECRETS = env_list("UPSTREAM_WEBHOOK_SECRETS", [])
UPSTREAM_REFRESH_INTERVAL_S = env.int("UPSTREAM_REFRESH_INTERVAL_S", default=30)
# The inbound board (dashboard/inbound/board.py) reads queues, schedules and voicemail this often.
INBOUND_POLL_S = env.float("INBOUND_POLL_S", default=2.0)
NORMAL_EVAL_S = env.float("NORMAL_EVAL_S", default=30.0)  # what changed: worked out this often
# The history fill's progress as the web processes read it lasts this long unless the bridge
# writes it again (a bridge that dies mid-fill leaves no "filling 40%" behind for ever).
FILLING_EXPIRY_S = env.float("FILLING_EXPIRY_S", default=60.0)
UPSTREAM_REST_TIMEOUT_S = env.float("UPSTREAM_REST_TIMEOUT_S", default=10.0)
# What a page asks the service while a person waits (a call, a recording) gives up sooner.
UPSTREAM_PAGE_TIMEOUT_S = env.float("UPSTREAM_PAGE_TIMEOUT_S", default=4.0)
SERVICE_LEVEL_THRESHOLD_S = env.int("SERVICE_LEVEL_THRESHOLD_S", default=20)
# Transcripts and call records are purged when older than this (docs/privacy.md).
RETENTION_DAYS = env.int("RETENTION_DAYS", default=90)
if RETENTION_DAYS < 1:
    raise ImproperlyConfigured("RETENTION_DAYS must be at least 1")
# The floor replay (docs/replay.md): the live events are recorded and kept this many days
# (today counted); REPLAY_RECORD=false stops recording.
REPLAY_DAYS = env.int("REPLAY_DAYS", default=7)
if REPLAY_DAYS < 1:
    raise ImproperlyConfigured("REPLAY_DAYS must be at least 1")
REPLAY_RECORD = env.bool("REPLAY_RECORD", default=True)
# The live feed pushes at least this often on a quiet floor; the upstream status it keeps
# for /readyz lapses after three missed beats. Browsers call a screen stale after
# LIVE_STALE_AFTER_S without a message (keep it above the heartbeat).
LIVE_HEARTBEAT_S = env.float("LIVE_HEARTBEAT_S", default=5.0)
LIVE_STALE_AFTER_S = env.float("LIVE_STALE_AFTER_S", default=10.0)
# From this many agents the live view's page holds only the tiles in view and a margin
# (static/js/live/grid.js); the others are kept current out of the page.
LIVE_WINDOW_FROM = env.int("LIVE_WINDOW_FROM", default=2000)
# A wallboard whose changes have waited this long for 10 s on end asks for whole panels at
# its own pace instead (dashboard/wallboard/catching_up.py): only a screen far behind, as
# a whole-panel refresh costs a slow screen a pass over every tile.
WALLBOARD_FAR_BEHIND_S = env.float("WALLBOARD_FAR_BEHIND_S", default=20.0)
# How long at least such a screen is sent whole panels before it follows the pushes again.
WALLBOARD_CATCH_UP_HOLD_S = env.float("WALLBOARD_CATCH_UP_HOLD_S", default=15.0)

# First values of the live view's limits; managers change them in the admin (Thresholds).
LIVE_THRESHOLDS = {
    "ringing_warn_s": env.int("THRESHOLD_RINGING_WARN_S", default=20),
    "ringing_alarm_s": env.int("THRESHOLD_RINGING_ALARM_S", default=40),
    "wrap_up_warn_s": env.int("THRESHOLD_WRAP_UP_WARN_S", default=60),
    "wrap_up_alarm_s": env.int("THRESHOLD_WRAP_UP_ALARM_S", default=120),
    "pause_warn_s": env.int("THRESHOLD_PAUSE_WARN_S", default=600),
    "pause_alarm_s": env.int("THRESHOLD_PAUSE_ALARM_S", default=900),
    "wait_warn_s": env.int("THRESHOLD_WAIT_WARN_S", default=30),
    "wait_alarm_s": env.int("THRESHOLD_WAIT_ALARM_S", default=60),
    "service_level_warn_pct": env.int("THRESHOLD_SERVICE_LEVEL_WARN_PCT", default=80),
    "service_level_alarm_pct": env.int("THRESHOLD_SERVICE_LEVEL_ALARM_PCT", default=70),
}

# The chat webhook of the alerts (docs/alerts.md): one signed POST per alert transition.
ALERT_WEBHOOK_URL = env("ALERT_WEBHOOK_URL", default="")
ALERT_WEBHOOK_SECRET = env("ALERT_WEBHOOK_SECRET", default="")
ALERT_WEBHOOK_TIMEOUT_S = env.float("ALERT_WEBHOOK_TIMEOUT_S", default=5.0)
# Tries per transition, 1, 2, 4, 8 and 16 s apart.
ALERT_WEBHOOK_ATTEMPTS = env.int("ALERT_WEBHOOK_ATTEMPTS", default=6)
# At most one POST this often; what falls due meanwhile is folded into the next one.
ALERT_WEBHOOK_MIN_INTERVAL_S = env.float("ALERT_WEBHOOK_MIN_INTERVAL_S", default=10.0)
# Transitions falling due within this of the first go in one POST (a digest).
ALERT_WEBHOOK_DIGEST_S = env.float("ALERT_WEBHOOK_DIGEST_S", default=2.0)
# The dashboard's own address, for the links in the webhook's body (`url`).
DASHBOARD_URL = env("DASHBOARD_URL", default=f"http://127.0.0.1:{DEMO_PORT}").rstrip("/")

INSTALLED_APPS = [
    "dashboard.accounts.apps.ManagerAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "csp",
    "axes",
    "dashboard.accounts",
    "dashboard.states",
    "dashboard.live",
    "dashboard.quality",
    "dashboard.reports",
    "dashboard.wallboard",
    "dashboard.alerts",
    "dashboard.drilldown",
    "dashboard.replay",
    "dashboard.interventions",
    "dashboard.inbound",
    "dashboard.normal",
    "dashboard.main",
    "dashboard.simulator",
    "dashboard.shared",  # its template tag library: the links to the agent and call pages
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "axes.middleware.AxesMiddleware",  # last: answers a locked-out sign-in
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "dashboard.accounts.context.navigation",
                "dashboard.alerts.context.alert_tray",
                "dashboard.interventions.context.acting",
            ],
        },
    },
]

DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
}
# Kept a minute, for SQLite too: every database call off the loop runs in a worker thread
# and closes what it opened (`database_sync_to_async`); with 0 each one opened the file again
# (WAL pragma and functions), which made a deploy's 500 handshakes take twice as long.
DATABASES["default"].setdefault("CONN_MAX_AGE", 60)
# A kept connection is checked before reuse: after a database restart the first request on
# each worker's old connection failed (500) instead of opening a new one.
DATABASES["default"].setdefault("CONN_HEALTH_CHECKS", True)
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # The web requests and the webhook processor write at once: wait for the lock, and let
    # readers read while a write is under way.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL;",
            "transaction_mode": "IMMEDIATE",
        }
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env("REDIS_URL", default="")
HEALTH_CACHE_TIMEOUT_S = env.float("HEALTH_CACHE_TIMEOUT_S", default=1.0)
# /metrics for Prometheus answers only `Authorization: Bearer <METRICS_TOKEN>`; unset: 404.
# Several processes: PROMETHEUS_MULTIPROC_DIR, an empty directory shared by all of them.
METRICS_TOKEN = env("METRICS_TOKEN", default="")
# With Redis, several bridges may run: one holds this lease and works, the others wait.
BRIDGE_LEASE_S = env.float("BRIDGE_LEASE_S", default=5.0)
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL], "capacity": 500, "expiry": 30},
        }
    }
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
        },
        # The same Redis for the health checks, which give up quickly: a probe that hangs
        # on a stalled Redis fails late, where 503 at once says what is wrong.
        "health": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "OPTIONS": {
                "socket_timeout": HEALTH_CACHE_TIMEOUT_S,
                "socket_connect_timeout": HEALTH_CACHE_TIMEOUT_S,
            },
        },
    }
else:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "dashboard.live.layers.SweepingInMemoryChannelLayer",
            "CONFIG": {"capacity": 500},
        }
    }
    # Room for every agent's tile (drilldown/tiles.py): at its default 300 entries locmem
    # would cull a third of its keys, the organisation and the live snapshot among them.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "OPTIONS": {"MAX_ENTRIES": 100_000},
        }
    }
    CACHES["health"] = CACHES["default"]  # the same LOCATION: the same entries

# The web server (dashboard/live/server.py, docs/deploy.md): a websocket with more than this
# unsent skips pushes until it drains, and is closed with 1012 if it has not drained in time;
# request bodies over the limit get 413 before they are read, bodies not in in time get 408.
FANOUT_BUFFER_CAP_BYTES = env.int("FANOUT_BUFFER_CAP_BYTES", default=1024 * 1024)
FANOUT_BEHIND_CLOSE_S = env.float("FANOUT_BEHIND_CLOSE_S", default=30.0)
REQUEST_BODY_MAX_BYTES = env.int("REQUEST_BODY_MAX_BYTES", default=1024 * 1024)
REQUEST_BODY_TIMEOUT_S = env.float("REQUEST_BODY_TIMEOUT_S", default=30.0)
# permessage-deflate on the websockets (dashboard/live/frames.py); off: for a browser whose
# compression misbehaves, at the cost of ten times the bytes
WEBSOCKET_DEFLATE = env.bool("WEBSOCKET_DEFLATE", default=True)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Outside production the hashers may be named (a comma-separated list replacing Django's):
# the tests' servers name a fast one, where each sign-in would cost a second of CPU.
if not PRODUCTION and env_list("PASSWORD_HASHERS", []):
    PASSWORD_HASHERS = env_list("PASSWORD_HASHERS", [])
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: refuses a locked-out sign-in
    "django.contrib.auth.backends.ModelBackend",
    "dashboard.accounts.backends.ManagerPermissionBackend",
]
# An open socket checks its person's access this often, and reconnects after at most this
# long (dashboard/accounts/sockets.py); sign-out, role changes and deactivation act at once.
SOCKET_RECHECK_S = env.float("SOCKET_RECHECK_S", default=60.0)
SOCKET_MAX_AGE_S = env.float("SOCKET_MAX_AGE_S", default=3600.0)
# Sign-in throttling (django-axes): SIGNIN_FAILURE_LIMIT failed sign-ins for one username,
# or from one address, pause sign-in for it for SIGNIN_COOLOFF_MIN minutes (the right
# password included); a manager lifts it sooner by deleting its Access attempt in the admin.
AXES_FAILURE_LIMIT = env.int("SIGNIN_FAILURE_LIMIT", default=10)
AXES_COOLOFF_TIME = timedelta(minutes=env.float("SIGNIN_COOLOFF_MIN", default=15))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]  # either one locks
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_DISABLE_ACCESS_LOG = True  # successful sign-ins are user.last_login; failures are logged
AXES_VERBOSE = False  # dashboard/accounts/audit.py logs each failure and lockout once
# Proxies in front of the web workers that each append to X-Forwarded-For (1: nginx alone);
# the throttle and the audit log take the address the outermost of them saw
# (dashboard/accounts/address.py). 0: no proxy, the socket's peer address.
TRUSTED_PROXIES = env.int("TRUSTED_PROXIES", default=0)
if TRUSTED_PROXIES < 0:
    raise ImproperlyConfigured("TRUSTED_PROXIES must be 0 or more")
AXES_CLIENT_IP_CALLABLE = "dashboard.accounts.address.client_address"
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/accounts/login/"

LANGUAGE_CODE = "en-gb"
TIME_ZONE = env("TIME_ZONE", default="UTC")
USE_I18N = False
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# Production serves what `collectstatic` gathered; the demo serves straight from static/.
STATIC_ROOT = BASE_DIR / "staticfiles" if PRODUCTION else None
WHITENOISE_USE_FINDERS = not PRODUCTION

X_FRAME_OPTIONS = "DENY"
# No inline script or style anywhere: htmx's own indicator styles are switched off by the
# htmx-config meta tag, and pages keep their data in <script type="application/json">.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        # A call's recording plays from the service's short-lived address: its origin only.
        "media-src": ["{0.scheme}://{0.netloc}".format(urlsplit(UPSTREAM_BASE_URL))],
        "frame-ancestors": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
    }
}
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SESSION_COOKIE_HTTPONLY = True
if PRODUCTION:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)

# text: one readable line each; json: one JSON object per line, for log systems.
LOG_FORMAT = env("LOG_FORMAT", default="text")
if LOG_FORMAT not in ("text", "json"):
    raise ImproperlyConfigured(f"LOG_FORMAT must be text or json, not {LOG_FORMAT!r}")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
        "json": {"()": "dashboard.shared.logs.JsonFormatter"},
    },
    "filters": {
        "kiosk_tokens": {"()": "dashboard.shared.logs.RedactKioskTokens"},
        "calm_refusals": {"()": "dashboard.shared.logs.CalmRefusals"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "json" if LOG_FORMAT == "json" else "plain",
            "filters": ["kiosk_tokens", "calm_refusals"],
        }
    },
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="INFO")},
    "loggers": {
        "django.request": {"filters": ["kiosk_tokens", "calm_refusals"]},
        "django.channels.server": {"level": "WARNING"},
        "httpx": {"level": "WARNING"},
        "daphne": {"level": "WARNING"},
    },
}
