"""Settings: every value comes from an environment variable (see README)."""

from pathlib import Path

import dj_database_url

from config.env import data_dir, env_bool, env_int, env_list, env_str, secret_key
from config.file_cache import file_caches
from config.object_storage import s3_storages

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
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "config",
    "registry",
    "codehost",
    "storefront",
]

MIDDLEWARE = [
    "config.cycles.ReleaseRenderedMiddleware",
    "config.middleware.RequestIdMiddleware",
    "config.middleware.LeanRoutesMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "config.middleware.SignInThrottleMiddleware",
]

ROOT_URLCONF = "config.urls"
# Paths whose requests skip the rest of MIDDLEWARE (config.middleware.LeanRoutesMiddleware):
# the OCI distribution API keeps the host check, Content-Length and the security headers.
LEAN_ROUTES = {
    "/v2/": {
        "URLCONF": "config.distribution_urls",
        "MIDDLEWARE": [
            "django.middleware.security.SecurityMiddleware",
            "django.middleware.common.CommonMiddleware",
            "django.middleware.clickjacking.XFrameOptionsMiddleware",
        ],
    },
}
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

# --- i18n, static -------------------------------------------------------------------
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
# One date format everywhere the admin shows a date (config/formats/en/formats.py).
FORMAT_MODULE_PATH = ["config.formats"]
STATIC_URL = "/static/"
STATIC_ROOT = DATA_DIR / "static"
STATIC_ROOT.mkdir(exist_ok=True)
STATICFILES_DIRS = (
    [BASE_DIR / "templates" / "static"] if (BASE_DIR / "templates" / "static").exists() else []
)
# Assets are served from the installed packages without a collectstatic step.
WHITENOISE_USE_FINDERS = True
MEDIA_ROOT = DATA_DIR / "media"

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
    # Connections are kept (CONN_MAX_AGE) as on PostgreSQL: opening one (its PRAGMAs, WAL
    # setup) cost more than the pull requests it served.
    # Each kept connection (one per web thread: 16 in `make run`) has its own page cache,
    # 2 MiB by default; 1 MiB holds the lists' pages all the same (a 100,000-repository
    # database: the same reads per request) and keeps ~1 MiB less per connection.
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 30,
        "transaction_mode": "IMMEDIATE",
        "init_command": (
            "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA cache_size=-1024;"
        ),
    }
    # Covering indexes (INCLUDE columns) speed PostgreSQL up; SQLite builds the index without
    # them, which is all it needs: no warning on every `make run`.
    SILENCED_SYSTEM_CHECKS = ["models.W040"]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- cache and broker ---------------------------------------------------------------
REDIS_URL = env_str("REDIS_URL")
if REDIS_URL:
    CACHES = {"default": {"BACKEND": "config.redis_cache.RedisCache", "LOCATION": REDIS_URL}}
else:
    # Files shared by the web, worker and beat processes, their counters atomic across
    # them; sign-in counters apart (config/file_cache.py).
    CACHES = file_caches(DATA_DIR)

BROKER_DIR = DATA_DIR / "broker"
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL") or REDIS_URL or "filesystem://"
CELERY_BROKER_TRANSPORT_OPTIONS = {}
if CELERY_BROKER_URL.startswith("filesystem"):
    for sub in ("queue", "processed", "control"):
        (BROKER_DIR / sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        # kombu's default is ./control, wherever the process happens to start.
        "control_folder": str(BROKER_DIR / "control"),
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "processed_folder": str(BROKER_DIR / "processed"),
        "store_processed": False,
        # How often a worker lists the queue folders (kombu's default 1 s is the delay a
        # migration or a webhook waits before any work starts); a listing costs ~0.1 ms.
        "polling_interval": 0.1,
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
# Celery's Django fixup closes the database connection around every task unless told to
# reuse it (a new PostgreSQL connection costs a task ~8 ms); config/celery.py applies
# Django's own per-request rules instead (CONN_MAX_AGE, health checks) before each task.
CELERY_DB_REUSE_MAX = 1000
CELERY_BEAT_SCHEDULE_FILENAME = str(DATA_DIR / "celerybeat-schedule")
# Periodic tasks; each service adds its entries in its own block below.
# Beat's own tick: the admin dashboard shows when a worker last ran it.
CELERY_BEAT_SCHEDULE = {"config-beat-tick": {"task": "config.beat_tick", "schedule": 30.0}}
CELERY_TIMEZONE = "UTC"
# Any number of beats may run: one holds a lease and sends, the others stand by
# (config/beat.py); one that dies is replaced within this many seconds.
CELERY_BEAT_SCHEDULER = "config.beat:SingleBeatScheduler"
BEAT_LEASE_SECONDS = env_int("BEAT_LEASE_SECONDS", 30)

# --- storage (files the services keep) ---------------------------------------------
# Blobs are content-addressed in the `registry` storage: any Django storage backend works
# (S3-compatible for scale-out); uploads in progress are staged under DATA_DIR.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    "registry": {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": str(DATA_DIR / "registry"), "allow_overwrite": True},
    },
}
# Object storage (S3 or any S3-compatible service) for blobs and store images instead of
# DATA_DIR; uploads in progress are then staged in the bucket too (registry.distribution.s3).
S3_BUCKET = env_str("S3_BUCKET")
if S3_BUCKET:
    STORAGES.update(
        s3_storages(
            S3_BUCKET,
            endpoint_url=env_str("S3_ENDPOINT_URL"),
            access_key=env_str("S3_ACCESS_KEY_ID"),
            secret_key=env_str("S3_SECRET_ACCESS_KEY"),
            region=env_str("S3_REGION"),
        )
    )

# --- auth ---------------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = []
AUTHENTICATION_BACKENDS = [
    # Refuses to check any password while the caller is throttled (config.signin_throttle).
    "config.signin_throttle.ThrottleBackend",
    "django.contrib.auth.backends.ModelBackend",
    # Directory sign-in when the registry's auth_mode is ldap_auth (registry.ldap_backend).
    "registry.ldap_backend.RegistryLDAPBackend",
]
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/admin/"
ADMIN_USERNAME = env_str("ADMIN_USERNAME", "admin")
# How long a verified Basic username/password pair is remembered (keyed digest in the cache).
BASIC_AUTH_CACHE_SECONDS = env_int("BASIC_AUTH_CACHE_SECONDS", 300)
# ... and for directory (LDAP) users, whose password can change outside this server.
BASIC_AUTH_DIRECTORY_CACHE_SECONDS = env_int("BASIC_AUTH_DIRECTORY_CACHE_SECONDS", 60)
# Failed sign-ins: at most this many per account from one client address, and per client
# address over all accounts, in each window of this many seconds (then 429, Retry-After).
SIGNIN_THROTTLE_ACCOUNT_FAILURES = env_int("SIGNIN_THROTTLE_ACCOUNT_FAILURES", 10)
SIGNIN_THROTTLE_ADDRESS_FAILURES = env_int("SIGNIN_THROTTLE_ADDRESS_FAILURES", 100)
SIGNIN_THROTTLE_WINDOW = env_int("SIGNIN_THROTTLE_WINDOW", 900)
# Reverse proxies in front of gunicorn whose X-Forwarded-For is trusted for the client's
# address (0: the peer address; a client's own X-Forwarded-For is then ignored).
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0)

# --- REST framework -----------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["config.parsers.StrictJSONParser"],
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

# --- registry (LDAP) ----------------------------------------------------------------
# The directory itself is configured at runtime through PUT /api/v2.0/configurations; these
# two are about how this host reaches it. A PEM bundle of CAs trusted for ldaps:// and
# StartTLS (default: the system store), and StartTLS on ldap:// URLs.
REGISTRY_LDAP_CA_FILE = env_str("REGISTRY_LDAP_CA_FILE")
REGISTRY_LDAP_START_TLS = env_bool("REGISTRY_LDAP_START_TLS")

# --- registry (OCI distribution API, /v2/ and /service/token) ----------------------
# Computed in gunicorn's master before it forks the web processes (config/gunicorn.py).
PROCESS_WARM_UP = ["registry.api.harbor_schema.warm_up"]
REGISTRY_UPLOADS_DIR = DATA_DIR / "registry-uploads"
# A blob GET answers 307 to a pre-signed URL of the object (Distribution's `redirect`
# middleware): bytes go from the bucket to the client, not through the web process.
REGISTRY_S3_REDIRECT = env_bool("REGISTRY_S3_REDIRECT", False)
REGISTRY_S3_REDIRECT_SECONDS = env_int("REGISTRY_S3_REDIRECT_SECONDS", 1200)
# How long a session stays held by a request on a node that died (a live one renews it).
REGISTRY_S3_UPLOAD_LEASE_SECONDS = env_int("REGISTRY_S3_UPLOAD_LEASE_SECONDS", 30)
# Upload sessions untouched for this long are removed with their staged bytes.
REGISTRY_UPLOAD_EXPIRY_HOURS = env_int("REGISTRY_UPLOAD_EXPIRY_HOURS", 24)
# Garbage collection deletes blob objects no blob row names once they are this old (a
# completing upload records the object it wrote well within it).
REGISTRY_ORPHAN_GRACE_MINUTES = env_int("REGISTRY_ORPHAN_GRACE_MINUTES", 60)
REGISTRY_TOKEN_SERVICE = env_str("REGISTRY_TOKEN_SERVICE", "harbor-registry")
REGISTRY_TOKEN_EXPIRATION_MINUTES = env_int("REGISTRY_TOKEN_EXPIRATION_MINUTES", 30)
# Pull records (pull_time, pull_count, audit) are written in batches this long after a pull.
REGISTRY_PULL_RECORD_MS = env_int("REGISTRY_PULL_RECORD_MS", 100)
CELERY_BEAT_SCHEDULE["registry-purge-abandoned-uploads"] = {
    "task": "registry.purge_abandoned_uploads",
    "schedule": 3600.0,
}
# Garbage collection keeps blobs and manifests pushed this recently (Harbor's setting).
GC_TIME_WINDOW_HOURS = env_int("GC_TIME_WINDOW_HOURS", 2)
CELERY_BEAT_SCHEDULE["registry-start-due-garbage-collection"] = {
    "task": "registry.start_due_garbage_collection",
    "schedule": 60.0,
}

# --- codehost -----------------------------------------------------------------------
# Bare repositories: $DATA_DIR/git/<owner>/<repo>.git (shared storage when scaled out).
CODEHOST_GIT_ROOT = Path(env_str("CODEHOST_GIT_ROOT") or DATA_DIR / "git")
# Seconds any one git command may run (clone/push streams included).
CODEHOST_GIT_TIMEOUT = env_int("CODEHOST_GIT_TIMEOUT", 600)
# Gitea [repository] FORCE_PRIVATE: every new repository is private, nobody but an admin
# may make one public.
CODEHOST_FORCE_PRIVATE = env_bool("CODEHOST_FORCE_PRIVATE")
# Gitea [repository] MAX_CREATION_LIMIT: repositories per owner, -1 = unlimited.
CODEHOST_MAX_CREATION_LIMIT = env_int("CODEHOST_MAX_CREATION_LIMIT", -1)
# Gitea [repository] DEFAULT_BRANCH of new repositories.
CODEHOST_DEFAULT_BRANCH = env_str("CODEHOST_DEFAULT_BRANCH", "main")
# Gitea [security] IMPORT_LOCAL_PATHS and [migrations] ALLOW_LOCALNETWORKS (migrations).
CODEHOST_IMPORT_LOCAL_PATHS = env_bool("CODEHOST_IMPORT_LOCAL_PATHS")
CODEHOST_MIGRATIONS_ALLOW_LOCALNETWORKS = env_bool("CODEHOST_MIGRATIONS_ALLOW_LOCALNETWORKS")
# The version GET /api/v1/version reports; clients switch features on it.
CODEHOST_GITEA_VERSION = "1.26.3"
# --- codehost migrations and mirrors ------------------------------------------------
# Gitea [migrations] ALLOWED_DOMAINS / BLOCKED_DOMAINS: comma lists of host globs, CIDRs or
# the words external, private, loopback, *. An empty allow list means external hosts only.
CODEHOST_MIGRATIONS_ALLOWED_DOMAINS = env_list("CODEHOST_MIGRATIONS_ALLOWED_DOMAINS")
CODEHOST_MIGRATIONS_BLOCKED_DOMAINS = env_list("CODEHOST_MIGRATIONS_BLOCKED_DOMAINS")
# Key material for stored remote credentials; SECRET_KEY when unset.
CODEHOST_SECRET_KEY = env_str("CODEHOST_SECRET_KEY")
# Gitea [git.timeout] MIGRATE and MIRROR: seconds a clone / a mirror update may run.
CODEHOST_MIGRATION_TIMEOUT = env_int("CODEHOST_MIGRATION_TIMEOUT", 600)
CODEHOST_MIRROR_TIMEOUT = env_int("CODEHOST_MIRROR_TIMEOUT", 300)
# How long POST /repos/migrate waits for the worker before giving up (and cleaning up).
CODEHOST_MIGRATION_WAIT_SECONDS = env_int(
    "CODEHOST_MIGRATION_WAIT_SECONDS", CODEHOST_MIGRATION_TIMEOUT + 60
)
# Migrations in flight (each holds a waiting web thread): beyond the first cap for one user
# POST /repos/migrate answers 429, beyond the second in all 503 (0 = no cap).
CODEHOST_MIGRATIONS_MAX_WAITING_PER_USER = env_int("CODEHOST_MIGRATIONS_MAX_WAITING_PER_USER", 3)
CODEHOST_MIGRATIONS_MAX_WAITING = env_int("CODEHOST_MIGRATIONS_MAX_WAITING", 10)
# Gitea [repository] DISABLE_MIGRATIONS and [mirror] ENABLED / DISABLE_NEW_PULL: migrations
# refused (403); the mirror feature off (no new mirrors, mirror-sync 400, no periodic sync);
# no new pull mirrors (403) while existing ones keep syncing.
CODEHOST_DISABLE_MIGRATIONS = env_bool("CODEHOST_DISABLE_MIGRATIONS")
CODEHOST_MIRRORS_ENABLED = env_bool("CODEHOST_MIRRORS_ENABLED", True)
CODEHOST_DISABLE_NEW_PULL_MIRRORS = env_bool("CODEHOST_DISABLE_NEW_PULL_MIRRORS")
# Gitea [mirror] DEFAULT_INTERVAL and MIN_INTERVAL (Go duration strings).
CODEHOST_MIRROR_DEFAULT_INTERVAL = env_str("CODEHOST_MIRROR_DEFAULT_INTERVAL", "8h")
CODEHOST_MIRROR_MIN_INTERVAL = env_str("CODEHOST_MIRROR_MIN_INTERVAL", "10m")
# Gitea's update_mirrors cron queues at most this many due mirrors per run.
CODEHOST_MIRROR_BATCH = env_int("CODEHOST_MIRROR_BATCH", 50)
CELERY_BEAT_SCHEDULE["codehost-queue-due-mirrors"] = {
    "task": "codehost.queue_due_mirrors",
    "schedule": env_int("CODEHOST_MIRROR_CHECK_SECONDS", 60),
}
CELERY_BEAT_SCHEDULE["codehost-reap-stuck-migrations"] = {
    "task": "codehost.reap_stuck_work",
    "schedule": env_int("CODEHOST_REAPER_SECONDS", 300),
}

# --- storefront ---------------------------------------------------------------------
# Lifetime of an OAuth authorization code (Tiendanube: 5 minutes).
STOREFRONT_OAUTH_CODE_SECONDS = env_int("STOREFRONT_OAUTH_CODE_SECONDS", 300)
# Leaky bucket per store and app: size and leak per second (Tiendanube: 40 and 2).
STOREFRONT_RATE_LIMIT_SIZE = env_int("STOREFRONT_RATE_LIMIT_SIZE", 40)
STOREFRONT_RATE_LIMIT_LEAK = float(env_str("STOREFRONT_RATE_LIMIT_LEAK", "2"))
# Tiendanube takes product images up to 10 MB as base64 inside JSON bodies (~13.4 MB).
DATA_UPLOAD_MAX_MEMORY_SIZE = 15 * 1024 * 1024

# --- storefront: webhooks, suspension and store pages ---------------------
# http:// webhook URLs (development and tests only).
STOREFRONT_WEBHOOK_ALLOW_INSECURE = env_bool("STOREFRONT_WEBHOOK_ALLOW_INSECURE")
# Webhook URLs on loopback and private networks, at registration and delivery (development
# and tests only; as Gitea's [migrations] ALLOW_LOCALNETWORKS).
STOREFRONT_WEBHOOK_ALLOW_LOCALNETWORKS = env_bool("STOREFRONT_WEBHOOK_ALLOW_LOCALNETWORKS")
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
