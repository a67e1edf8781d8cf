"""Gitea's name rules for repositories, users and organizations (models/db/name.go)."""

import fnmatch
import re

from codehost.errors import Invalid

ALPHA_DASH_DOT = re.compile(r"^[A-Za-z0-9_.-]+$")
REPO_RESERVED = {".", "..", "-"}
REPO_PATTERNS = ["*.wiki", "*.git", "*.rss", "*.atom"]

# Go's regexp: \d and \w are ASCII only, and $ is the end of the text.
USERNAME = re.compile(r"^[\da-zA-Z][-.\w]*\Z", re.ASCII)
USERNAME_BAD_RUN = re.compile(r"[-._]{2,}|[-._]$")
USER_RESERVED = {
    ".", "..", ".well-known", "api", "metrics", "v2", "assets", "attachments", "avatar",
    "avatars", "repo-avatars", "captcha", "login", "org", "repo", "user", "explore", "issues",
    "pulls", "milestones", "notifications", "favicon.ico", "manifest.json", "robots.txt",
    "sitemap.xml", "ssh_info", "swagger.v1.json", "ghost", "gitea-actions",
}  # fmt: skip
USER_PATTERNS = ["*.keys", "*.gpg", "*.rss", "*.atom", "*.png"]

TEAM_RESERVED = {"new"}


def _reserved_or_pattern(name: str, reserved: set[str], patterns: list[str]) -> None:
    lowered = name.strip().lower()
    if lowered in reserved:
        raise Invalid(f"name is reserved [name: {name}]")
    for pattern in patterns:
        if fnmatch.fnmatchcase(lowered, pattern):
            raise Invalid(f"name pattern is not allowed [pattern: {pattern}]")


def check_repo_name(name: str, field: str = "Name") -> None:
    if not name:
        raise Invalid(f"[{field}]: Required")
    if len(name) > 100:
        raise Invalid(f"[{field}]: MaxSize")
    if not ALPHA_DASH_DOT.match(name):
        raise Invalid(f"[{field}]: AlphaDashDot")
    _reserved_or_pattern(name, REPO_RESERVED, REPO_PATTERNS)
    if ".." in name:
        raise Invalid(
            f"name is invalid [{name}]: "
            "must be valid alpha or numeric or dash(-_) or dot characters"
        )


def check_user_name(name: str, field: str = "UserName") -> None:
    if not name:
        raise Invalid(f"[{field}]: Required")
    if len(name) > 40 or not USERNAME.match(name) or USERNAME_BAD_RUN.search(name):
        raise Invalid(f"[{field}]: invalid username")
    _reserved_or_pattern(name, USER_RESERVED, USER_PATTERNS)


def check_team_name(name: str) -> None:
    if not name:
        raise Invalid("[Name]: Required")
    if len(name) > 255:
        raise Invalid("[Name]: MaxSize")
    if not ALPHA_DASH_DOT.match(name):
        raise Invalid("[Name]: AlphaDashDot")
    if name.lower() in TEAM_RESERVED:
        raise Invalid(f"name is reserved [name: {name}]")
