"""The GitHub side of a migration whose service is `github`.

Gitea's GitHub downloader asks the GitHub API for the repository before anything else, and
two of its answers are migration errors of their own: the API's rate limit is
used up, or the account needs a two-factor code. go-github tells them apart by status and
headers; other failures carry its error text ("GET <url>: 401 Bad credentials []"), which
the migration then classifies as it does git's.
"""

import base64
import http.client
import json
import socket
import urllib.error
import urllib.request
from urllib.parse import quote, urlsplit

from codehost.errors import Invalid
from codehost.remote_address import InvalidCloneAddress, check_host_allowed

RATE_LIMITED = "Remote visit addressed rate limitation."
TWO_FACTOR_REQUIRED = "Remote visit required two factors authentication."
PUBLIC_HOSTS = ("github.com", "www.github.com")


class RefuseRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect could lead anywhere, past the checks the clone address went through."""

    def redirect_request(self, *args, **kwargs):
        return None


def _pinned(connection_class, address):
    """`connection_class` connecting to `address` whatever the host name resolves to by
    then (TLS still verifies and sends the name)."""

    class Pinned(connection_class):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            if address is not None:
                self._create_connection = lambda target, *rest, **options: socket.create_connection(
                    (str(address), target[1]), *rest, **options
                )

    return Pinned


class PinnedHTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, address):
        super().__init__()
        self.address = address

    def http_open(self, req):
        return self.do_open(_pinned(http.client.HTTPConnection, self.address), req)


class PinnedHTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, address):
        super().__init__()
        self.address = address

    def https_open(self, req):
        connection = _pinned(http.client.HTTPSConnection, self.address)
        return self.do_open(connection, req, context=self._context)


def pinned_opener(url: str):
    """An opener for `url` whose host the allow/block rules accept now, held to the first
    address checked (DNS rebinding) and refusing redirects; InvalidCloneAddress otherwise."""
    addresses = check_host_allowed(urlsplit(url).hostname or "")
    address = addresses[0] if addresses else None
    return urllib.request.build_opener(
        RefuseRedirects, PinnedHTTPHandler(address), PinnedHTTPSHandler(address)
    )


class GitHubRefused(Exception):
    """The API's answer; `code` (a domain error code) is set for the errors that are the
    caller's to fix (credentials, rate limit, a refused host), else the failure is ours."""

    def __init__(self, message: str, code: str | None = None):
        super().__init__(message)
        self.code = code


def repository_url(clone_addr: str) -> str | None:
    """The API address of the repository (github.com's API, else GitHub Enterprise's
    /api/v3 on the same host), or None when the address names no owner/repository."""
    parts = urlsplit(clone_addr)
    segments = [segment for segment in parts.path.split("/") if segment]
    if parts.scheme not in ("http", "https") or len(segments) < 2:
        return None
    owner, name = segments[0], segments[1].removesuffix(".git")
    if parts.hostname in PUBLIC_HOSTS:
        base = "https://api.github.com"
    else:
        base = f"{parts.scheme}://{parts.netloc}/api/v3"
    return f"{base}/repos/{quote(owner)}/{quote(name)}"


def check_repository(clone_addr: str, *, username: str, password: str, timeout: int) -> None:
    """GET the repository from the API; raises GitHubRefused unless it answers 2xx."""
    url = repository_url(clone_addr)
    if url is None:
        return
    request = urllib.request.Request(url, headers={"Accept": "application/vnd.github+json"})
    if username or password:
        login = base64.b64encode(f"{username}:{password}".encode()).decode()
        request.add_header("Authorization", f"Basic {login}")
    try:
        opener = pinned_opener(url)
    except InvalidCloneAddress as refused:
        raise GitHubRefused(refused.message, code=Invalid.code) from None
    try:
        with opener.open(request, timeout=timeout):
            return
    except urllib.error.HTTPError as answer:
        raise refusal(url, answer) from None
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise GitHubRefused(f'Get "{url}": {reason}') from None


def refusal(url: str, answer: urllib.error.HTTPError) -> GitHubRefused:
    headers = answer.headers
    if answer.code == 401 and headers.get("X-GitHub-OTP", "").startswith("required"):
        return GitHubRefused(TWO_FACTOR_REQUIRED, code=Invalid.code)
    if answer.code in (403, 429) and headers.get("X-RateLimit-Remaining") == "0":
        return GitHubRefused(RATE_LIMITED, code=Invalid.code)
    try:
        message = json.loads(answer.read() or b"{}").get("message", "")
    except (ValueError, AttributeError, OSError):
        message = ""
    return GitHubRefused(f"GET {url}: {answer.code} {message} []")
