"""Robot accounts: creation, changes, secrets and sign-in (Harbor 2.2+ robots).

A robot signs in with `<robot_name_prefix><name>` and its secret wherever a user signs in,
and is then allowed exactly its permissions: project ones (`kind: project`, a project name
or `*` as namespace) and system ones (`kind: system`, namespace `/`). The secret is shown
once; only its password hash is stored, and it is never logged. What may be granted, and
what a permission applies to: registry.services.robot_permissions.
"""

import hashlib
import hmac
import re
import secrets
import string
import time

from django.conf import settings
from django.contrib.auth.hashers import check_password, make_password
from django.core.cache import cache
from django.db import IntegrityError, transaction

from config import signin_throttle
from registry import configuration
from registry.errors import BadRequest, Conflict, Forbidden, NotFound
from registry.models import Project, Robot
from registry.services import robot_permissions
from registry.services.project_lock import lock_project
from registry.services.robot_permissions import ALL, scope_of

# \Z: a final newline is not part of a name (Python's `$` would let it through).
NAME_RE = re.compile(r"^[a-z0-9]+(?:[._-][a-z0-9]+)*\Z")
# Harbor's secret rule: 8-128 characters with an upper case letter, a lower case letter and
# a digit.
SECRET_RULE = (
    "the secret must be 8-128, inclusively, characters long with at least 1 uppercase letter, "
    "1 lowercase letter and 1 number"
)
MAX_DURATION_DAYS = 2**31 - 2
# The stored name (`project+name` for project robots, whose project names take at most 255)
# fits the column's 255 characters.
MAX_NAME = 255


class RobotPrincipal:
    """The signed-in robot, standing where a request's user stands. It is no Django user:
    it holds no role in any project and is never a system admin."""

    is_authenticated = True
    is_anonymous = False
    is_active = True
    is_superuser = False
    is_staff = False
    pk = id = None

    def __init__(self, robot: Robot, username: str):
        self.robot = robot
        self.username = username

    def __str__(self):
        return self.username

    def get_username(self) -> str:
        return self.username

    def has_usable_password(self) -> bool:
        return True

    def allows(self, kind: str, scope, resource: str, action: str) -> bool:
        """Whether a permission of `kind` on `scope` (a project's id, `*`, or `/` for the
        system) grants `resource:action`."""
        for permission in self.robot.permissions:
            if permission["kind"] != kind or scope_of(permission) not in (scope, ALL):
                continue
            for access in permission["access"]:
                if access.get("effect") == "deny":
                    continue
                if access["resource"] in (resource, ALL) and access["action"] in (action, ALL):
                    return True
        return False

    def project_ids(self) -> set:
        """Ids of the projects it holds project permissions in (`*`: every project)."""
        scopes = {scope_of(p) for p in self.robot.permissions if p["kind"] == "project"}
        return scopes - {None}


def full_name(robot: Robot) -> str:
    return configuration.get("robot_name_prefix") + robot.name


def _expiry(duration: int, start: float) -> int:
    return -1 if duration == -1 else int(start + duration * 86400)


def new_secret() -> str:
    """A random secret that passes Harbor's secret rule."""
    alphabet = string.ascii_letters + string.digits
    while True:
        secret = "".join(secrets.choice(alphabet) for _ in range(32))
        if valid_secret(secret):
            return secret


def valid_secret(secret: str) -> bool:
    return (
        8 <= len(secret) <= 128
        and any(c.islower() for c in secret)
        and any(c.isupper() for c in secret)
        and any(c.isdigit() for c in secret)
    )


# --- validation (Harbor answers these with 400) -------------------------------------------


def _duration(value, default: int) -> int:
    if value is None or value == 0:
        return default
    if value != -1 and not 0 < value <= MAX_DURATION_DAYS:
        raise BadRequest(
            f"bad request error duration input: {value}, duration must be either -1(Never) "
            "or a positive integer"
        )
    return value


def check_name(name) -> None:
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise BadRequest("robot name is not in lower case or contains illegal characters")
    if len(name) > MAX_NAME:
        raise BadRequest(f"robot name should be at most {MAX_NAME} characters long")


def check_settings(level, permissions, duration=None) -> None:
    """The checks Harbor makes before deciding who may change a robot: 400 on bad input."""
    _duration(duration, 1)
    robot_permissions.normalised(level, permissions)


def _capped(expires_at: int, limit: int) -> int:
    """An expiry no later than `limit` (-1: never)."""
    if limit == -1:
        return expires_at
    return limit if expires_at == -1 else min(expires_at, limit)


def _creator_limit(robot: Robot) -> int:
    """The latest expiry a robot-made robot may have: its maker's (its own current one
    once the maker is gone)."""
    if robot.creator_type != "robot":
        return -1
    maker = Robot.objects.filter(pk=robot.creator_ref).values_list("expires_at", flat=True)
    limit = maker.first()
    return robot.expires_at if limit is None else limit


def namespace_of(permissions) -> str:
    """The project a project robot belongs to, as its one permission names it."""
    return permissions[0].get("namespace") or ""


# --- changes --------------------------------------------------------------------------------


def create(
    creator,
    name: str,
    level: str,
    permissions,
    project: Project | None = None,
    description: str = "",
    duration: int | None = None,
    disable: bool = False,
) -> tuple[Robot, str]:
    """A new robot and its secret (the only time the secret exists in clear)."""
    check_name(name)
    check_settings(level, permissions, duration)
    clean = robot_permissions.normalised(level, permissions)
    robot_permissions.bind(clean, project if level == Robot.Level.PROJECT else None)
    maker = getattr(creator, "robot", None)
    if maker is not None and not robot_permissions.within(clean, maker.permissions):
        raise Forbidden(
            "permission scope is invalid. It must be equal to or more restrictive than the "
            f"creator robot's permissions: {creator.get_username()}"
        )
    days = _duration(duration, configuration.get("robot_token_duration"))
    stored = f"{project.name}+{name}" if level == Robot.Level.PROJECT else name
    if len(stored) > MAX_NAME:
        raise BadRequest(f"robot name should be at most {MAX_NAME} characters long")
    secret = new_secret()
    robot = Robot(
        name=stored,
        description=description or "",
        secret_hash=make_password(secret),
        level=level,
        project=project if level == Robot.Level.PROJECT else None,
        permissions=clean,
        duration=days,
        # Deliberately tighter than Harbor: a robot-made robot never outlives its maker.
        expires_at=_capped(_expiry(days, time.time()), maker.expires_at if maker else -1),
        disabled=bool(disable),
        creator_type="robot" if maker is not None else "local",
        creator_ref=maker.pk if maker is not None else getattr(creator, "pk", None) or 0,
    )
    try:
        with transaction.atomic():
            if robot.project is not None:
                lock_project(robot.project)
            robot.save()
    except IntegrityError as exc:
        raise Conflict(f"robot account {robot.project_id or 0}:{stored} already exists") from exc
    return robot, secret


def get(robot_id: int) -> Robot:
    robot = Robot.objects.select_related("project").filter(pk=robot_id).first()
    if robot is None:
        raise NotFound(f"robot {robot_id} not found")
    return robot


@transaction.atomic
def update(robot: Robot, body: dict) -> Robot:
    """Harbor's PUT: description, disable, duration and permissions change; the name,
    level and project may not.

    The row is locked first and only those fields are written: a robot deleted meanwhile
    stays deleted (a save would have inserted it again) and a secret refreshed meanwhile
    stays refreshed (a save would have written back the one read before)."""
    if not Robot.objects.select_for_update().filter(pk=robot.pk).exists():
        raise NotFound(f"robot {robot.pk} not found")
    level = body.get("level") or ""
    clean = robot_permissions.normalised(level, body.get("permissions"))
    if level != robot.level or body.get("name") != full_name(robot):
        raise BadRequest("cannot update the level or name of robot")
    project = robot.project if robot.level == Robot.Level.PROJECT else None
    if project is not None and clean[0]["namespace"] not in (project.name, str(project.pk)):
        raise BadRequest("cannot update the project id of robot")
    robot_permissions.bind(clean, project)
    days = body.get("duration")
    days = robot.duration if days is None else _duration(days, robot.duration)
    if days != robot.duration:
        limit = _creator_limit(robot)
        robot.duration = days
        robot.expires_at = _capped(_expiry(days, robot.creation_time.timestamp()), limit)
    robot.description = body.get("description") or ""
    robot.disabled = bool(body.get("disable"))
    robot.permissions = clean
    robot.save(
        update_fields=[
            "duration",
            "expires_at",
            "description",
            "disabled",
            "permissions",
            "update_time",
        ]
    )
    return robot


def refresh_secret(robot: Robot, secret: str | None) -> str:
    """Set the given secret (shown to no one) or a new random one (returned)."""
    if secret:
        if not valid_secret(secret):
            raise BadRequest(SECRET_RULE)
        chosen, shown = secret, ""
    else:
        chosen = shown = new_secret()
    robot.secret_hash = make_password(chosen)
    with transaction.atomic():
        # A robot deleted meanwhile is not found (the save would fail on the missing row).
        if not Robot.objects.select_for_update().filter(pk=robot.pk).exists():
            raise NotFound(f"robot {robot.pk} not found")
        robot.save(update_fields=["secret_hash", "update_time"])
    return shown


def delete(robot: Robot) -> None:
    # One of two racing deletes succeeds (and is audited); the other finds nothing.
    if not Robot.objects.filter(pk=robot.pk).delete()[0]:
        raise NotFound(f"robot {robot.pk} not found")


# --- sign-in --------------------------------------------------------------------------------


def _digest(*parts: str) -> str:
    message = "\0".join(parts).encode()
    return hmac.new(settings.SECRET_KEY.encode(), message, hashlib.sha256).hexdigest()


def expired(robot: Robot) -> bool:
    return robot.expires_at != -1 and robot.expires_at <= time.time()


def authenticate(request, username: str, secret: str) -> RobotPrincipal | None:
    """The robot these credentials name, if the secret matches and it is enabled and not
    expired; else None (the caller then tries the name as a user's, which counts the
    failure). Throttled sign-ins (config.signin_throttle) raise SignInThrottled first, so
    a throttled guesser learns nothing even from a right secret.

    A password hash costs ~0.2 s and clients send credentials on every request, so a
    verified pair is remembered under a keyed digest, with a fingerprint of the stored
    hash: a refreshed secret invalidates it at once.
    """
    prefix = configuration.get("robot_name_prefix")
    if not prefix or not username.startswith(prefix) or not secret:
        return None
    signin_throttle.check(request, username)
    name = username[len(prefix) :]
    robot = Robot.objects.filter(name=name).first()
    if robot is None:
        return None
    key = "robot-auth:" + _digest(name, secret)
    fingerprint = _digest(str(robot.pk), robot.secret_hash)
    cached = cache.get(key)
    if cached is None or not hmac.compare_digest(cached, fingerprint):
        if not check_password(secret, robot.secret_hash):
            return None
        cache.set(key, fingerprint, settings.BASIC_AUTH_CACHE_SECONDS)
    if robot.disabled or expired(robot):
        return None
    return RobotPrincipal(robot, username)
