"""Django settings for Zodiac tracker: one file, configured from the environment.

Development needs nothing set. Production sets at least DEBUG=false, SECRET_KEY,
ALLOWED_HOSTS and usually DATABASE_URL and CSRF_TRUSTED_ORIGINS (see docs/hosting.md). A table's
own server (`make run`) runs with DEBUG off over plain HTTP: HTTPS=false.
"""

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent


def envbool(name: str, default: bool) -> bool:
    """Read a yes/no environment variable; refuse anything that is not clearly one."""
    value = os.environ.get(name, "").strip().lower()
    if not value:
        return default
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise ImproperlyConfigured(f"{name} must be true or false, not {value!r}")


def envint(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, not {value!r}") from None


def envlist(name: str) -> list[str]:
    """A comma-separated environment variable as a list, blanks dropped."""
    return [item.strip() for item in os.environ.get(name, "").split(",") if item.strip()]


DEBUG = envbool("DEBUG", True)

# The development key is public: it is refused whenever DEBUG is off.
DEV_SECRET_KEY = "django-insecure-zodiac-development-only"
SECRET_KEY = os.environ.get("SECRET_KEY", DEV_SECRET_KEY)
if not DEBUG and (
    SECRET_KEY == DEV_SECRET_KEY
    or SECRET_KEY.startswith("django-insecure")
    or len(SECRET_KEY) < 50
    or len(set(SECRET_KEY)) < 5
):
    raise ImproperlyConfigured(
        "With DEBUG off, SECRET_KEY must be set to a long random value "
        "(at least 50 characters), for example the output of "
        "python -c 'import secrets; print(secrets.token_urlsafe(50))'."
    )

ALLOWED_HOSTS = envlist("ALLOWED_HOSTS")
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "axes",
    "campaign",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Gzip for pages, htmx answers and the live stream (BREACH: see its docstring). After
    # WhiteNoise, whose static files come precompressed from collectstatic and never reach
    # it; before every middleware that makes or changes a body (NotAllowedPage's 405 page,
    # the lockout page), so what they answer is compressed too.
    "campaign.middleware.CompressionMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "campaign.middleware.SpanishFirstLocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # The admin answers 404 to all but its staff, as any page not theirs does.
    "campaign.middleware.StaffOnlyAdminMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "campaign.middleware.NotAllowedPageMiddleware",
    # Axes goes after the others: it turns a locked-out login into the lockout page.
    "axes.middleware.AxesMiddleware",
    # A tap the page gave up on is refused, never applied late (campaign/deadline.py).
    "campaign.middleware.TapDeadlineMiddleware",
    # A tap from its browser's only page of the campaign: its stream need not render it.
    "campaign.middleware.OnlyTabMiddleware",
    # Last: keeps the chain sync, in one thread, under ASGI (see its docstring).
    "campaign.middleware.SyncChainMiddleware",
]

# The live stream gzipped for browsers that ask, like every page; LIVE_GZIP=false sends it
# plain. Each stream compresses its own messages: about 1 % of the workers' CPU at five
# tables on two cores, and no delivery time (docs/benchmarks.md, the soak).
LIVE_GZIP = envbool("LIVE_GZIP", True)

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.template.context_processors.csp",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=envint("CONN_MAX_AGE", 0),
        conn_health_checks=True,
    )
}
# PostgreSQL: connections held by each process in a pool (psycopg_pool), so a request takes
# one in a few microseconds instead of opening its own; DATABASE_POOL is the most each
# process holds (0: none, a connection per request). The pool's connections are checked
# before use (CONN_HEALTH_CHECKS), so one the server dropped is replaced, not handed out;
# a request that waits DATABASE_POOL_TIMEOUT seconds for one gets the 503 page
# (campaign.views.errors). The live hub's queries hold one of them; its LISTEN is its own.
DATABASE_POOL = envint("DATABASE_POOL", 0)
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # A server that does not answer fails the attempt after this, not after the OS's minutes.
    DATABASES["default"].setdefault("OPTIONS", {})["connect_timeout"] = envint(
        "DATABASE_CONNECT_TIMEOUT", 5
    )
    if DATABASE_POOL > 0:
        if DATABASES["default"]["CONN_MAX_AGE"]:
            raise ImproperlyConfigured("DATABASE_POOL and CONN_MAX_AGE cannot both be set.")
        DATABASES["default"]["OPTIONS"]["pool"] = {
            "min_size": min(2, DATABASE_POOL),
            "max_size": DATABASE_POOL,
            # Short enough that a tap answered 503 and passed to another process by the
            # proxy is still within its 5 s deadline there (campaign.deadline).
            "timeout": envint("DATABASE_POOL_TIMEOUT", 2),
        }
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # IMMEDIATE takes SQLite's write lock when a transaction begins, so concurrent
    # writers queue on the busy timeout instead of failing halfway through.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Axes checks for a lockout before the password; then Django's usual backend.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "campaign.auth.UsernameAnyCaseBackend",
]
# Anyone may make an account from the login page, to run campaigns as a DJ (players join
# through their invitation). A private server turns it off: SIGNUP=false.
SIGNUP = envbool("SIGNUP", True)
# How long a password link a DJ gives a player stays good (it works once).
PASSWORD_RESET_TIMEOUT = 3 * 24 * 3600

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# Spanish first: Zodiac is a Spanish game and its tables play in Spanish.
LANGUAGE_CODE = "es"
LANGUAGES = [("es", _("Spanish")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = os.environ.get("TIME_ZONE", "Europe/Madrid")
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT") or BASE_DIR / "staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "config.storage.StaticFilesStorage"
    },
}
# In development uvicorn serves static files through WhiteNoise straight from the
# app folders; in production they come from `collectstatic`.
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG

# Login throttling (django-axes): 5 wrong passwords for one username from one address lock
# that pair for 15 minutes. The pair, not the address alone (players share a table's Wi-Fi)
# nor the username alone (anyone could lock a player out from anywhere). A try while locked,
# even with the right password, restarts the 15 minutes, so the page's "wait 15 minutes"
# holds. A login resets the count. The address is REMOTE_ADDR, which uvicorn's
# --proxy-headers sets from the local proxy's X-Forwarded-For (docs/hosting.md, Accounts).
AXES_FAILURE_LIMIT = 5
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_COOLOFF_TIME = timedelta(minutes=15)
AXES_RESET_ON_SUCCESS = True
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = True
# The login page itself, with the message and HTTP 429 (campaign/views/accounts.py).
AXES_LOCKOUT_CALLABLE = "campaign.views.accounts.lockout"
# Axes' own default, named here so the lockout page's status is a declared setting.
AXES_HTTP_RESPONSE_CODE = 429
# Failures only: no table of every successful login's address and browser.
AXES_DISABLE_ACCESS_LOG = True
# No start-up banner on every manage.py command; failures and lockouts are still logged.
AXES_VERBOSE = False

SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "object-src": [CSP.NONE],
}

SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True

# Served over HTTPS (production): secure cookies, redirects to HTTPS and HSTS. A table's
# own server on its Wi-Fi (`make run`) serves plain HTTP: HTTPS=false leaves those out.
HTTPS = envbool("HTTPS", True)

if not DEBUG and HTTPS:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = envbool("SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", 31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = envbool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = envbool("SECURE_HSTS_PRELOAD", True)
    # The health check answers plain HTTP too: the proxy and systemd ask each process
    # directly, on its loopback port (deploy/, docs/hosting.md).
    SECURE_REDIRECT_EXEMPT = [r"^salud/$"]
    if envbool("BEHIND_PROXY", False):
        # Only behind a proxy that sets this header itself, whatever the browser sent
        # (deploy/nginx/zodiac.conf does).
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}
