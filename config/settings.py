"""Settings: every value comes from an environment variable (see README)."""

from pathlib import Path

import dj_database_url

from config.env import data_dir, env_bool, env_int, env_list, env_str, secret_key

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = data_dir(BASE_DIR)

SECRET_KEY = secret_key(DATA_DIR)
DEBUG = env_bool("DEBUG")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
PORT = env_int("PORT", 8000)
EXTERNAL_URL = env_str("EXTERNAL_URL", f"http://127.0.0.1:{PORT}").rstrip("/")
CSRF_TRUSTED_ORIGINS = [EXTERNAL_URL]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "config",
    "registry",
    "codehost",
    "storefront",
]

MIDDLEWARE = [
    "config.middleware.RequestIdMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
# harborapi posts to paths without their trailing slash; a redirect would lose the body.
APPEND_SLASH = False

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
            ],
        },
    },
]

# --- database -----------------------------------------------------------------------
DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL") or f"sqlite:///{DATA_DIR / 'db.sqlite3'}",
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Several processes (web, worker, beat) share the file: wait for locks, write-ahead log.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 30,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- cache and broker ---------------------------------------------------------------
REDIS_URL = env_str("REDIS_URL")
if REDIS_URL:
    CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}
    }
else:
    # A file cache is shared by the web, worker and beat processes of the embedded default.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(DATA_DIR / "cache"),
        }
    }

BROKER_DIR = DATA_DIR / "broker"
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL") or REDIS_URL or "filesystem://"
CELERY_BROKER_TRANSPORT_OPTIONS = {}
if CELERY_BROKER_URL.startswith("filesystem"):
    for sub in ("queue", "processed"):
        (BROKER_DIR / sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "processed_folder": str(BROKER_DIR / "processed"),
        "store_processed": False,
    }
elif CELERY_BROKER_URL.startswith("redis"):
    # A task whose worker died mid-run is redelivered after this long (acks_late below).
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 3600)
    }
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_BEAT_SCHEDULE_FILENAME = str(DATA_DIR / "celerybeat-schedule")
# Periodic tasks; each service adds its entries in its own block below.
CELERY_BEAT_SCHEDULE = {}
CELERY_TIMEZONE = "UTC"

# --- auth ---------------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = []
AUTHENTICATION_BACKENDS = ["django.contrib.auth.backends.ModelBackend"]
LOGIN_URL = "/accounts/login/"
ADMIN_USERNAME = env_str("ADMIN_USERNAME", "admin")
# How long a verified Basic username/password pair is remembered (keyed digest in the cache).
BASIC_AUTH_CACHE_SECONDS = env_int("BASIC_AUTH_CACHE_SECONDS", 300)

# --- i18n, static -------------------------------------------------------------------
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "/static/"
STATIC_ROOT = DATA_DIR / "static"
STATIC_ROOT.mkdir(exist_ok=True)
STATICFILES_DIRS = (
    [BASE_DIR / "templates" / "static"] if (BASE_DIR / "templates" / "static").exists() else []
)
# Assets are served from the installed packages without a collectstatic step.
WHITENOISE_USE_FINDERS = True
MEDIA_ROOT = DATA_DIR / "media"

# --- REST framework -----------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "API",
    "VERSION": "1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
}

# --- storefront ---------------------------------------------------------------------
# Lifetime of an OAuth authorization code (Tiendanube: 5 minutes).
STOREFRONT_OAUTH_CODE_SECONDS = env_int("STOREFRONT_OAUTH_CODE_SECONDS", 300)
# Leaky bucket per store and app: size and leak per second (Tiendanube: 40 and 2).
STOREFRONT_RATE_LIMIT_SIZE = env_int("STOREFRONT_RATE_LIMIT_SIZE", 40)
STOREFRONT_RATE_LIMIT_LEAK = float(env_str("STOREFRONT_RATE_LIMIT_LEAK", "2"))

# --- storefront: webhooks, suspension and store pages (issue 9) ---------------------
# http:// and loopback/private webhook URLs (development and tests only).
STOREFRONT_WEBHOOK_ALLOW_INSECURE = env_bool("STOREFRONT_WEBHOOK_ALLOW_INSECURE")
# Seconds between attempts replacing Tiendanube's schedule, e.g. "1,2,3" (4 attempts).
STOREFRONT_WEBHOOK_RETRY_SCHEDULE = [
    float(seconds) for seconds in env_list("STOREFRONT_WEBHOOK_RETRY_SCHEDULE")
]
# How long one POST may take (Tiendanube: 3 s).
STOREFRONT_WEBHOOK_TIMEOUT = env_int("STOREFRONT_WEBHOOK_TIMEOUT", 3)
# Pending deliveries whose task was queued this long ago and never ran are queued again.
STOREFRONT_WEBHOOK_REQUEUE_AFTER = env_int("STOREFRONT_WEBHOOK_REQUEUE_AFTER", 300)
CELERY_BEAT_SCHEDULE["storefront-requeue-lost-deliveries"] = {
    "task": "storefront.requeue_lost_deliveries",
    "schedule": 60.0,
    "options": {"queue": "webhooks"},
}

# --- logging ------------------------------------------------------------------------
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "config.logging.RequestIdFilter"}},
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["request_id"],
            "formatter": "plain",
        },
    },
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"django.request": {"level": "ERROR"}},
}
