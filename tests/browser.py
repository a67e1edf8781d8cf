"""Headless Chromium (Debian's package) driven by Playwright's sync API, for the browser
tests of the store pages and the admin console.

Module-scoped on purpose: Playwright's sync API runs an asyncio event loop in the test
thread for as long as it is open, and a loop left running would break every later test
that calls `asyncio.run` (harborapi's async client does)."""

import os

import pytest
from playwright.sync_api import sync_playwright

from tests.services.debian import require

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def chromium():
    paths = require({"chromium": ("chromium", ())})
    # The test's ORM calls stay plain synchronous code inside Playwright's loop.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=paths["chromium"], args=CHROMIUM_ARGS
            )
            yield browser
            browser.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def page(chromium):
    context = chromium.new_context(ignore_https_errors=True)
    yield context.new_page()
    context.close()
