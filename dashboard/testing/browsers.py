"""Chromium through Playwright, as a supervisor's browser or an office TV."""

from playwright.sync_api import Error as PlaywrightError

from .processes import ROOT
from .servers import USER_PASSWORD

ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def launch(playwright):
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


def sign_in(page, server, username):
    """Through the sign-in form; lands on the live view."""
    page.goto(f"{server.url}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", USER_PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{server.url}/")


def session_cookies(server, username) -> list[dict]:
    """`username`'s session, signed in through the form over HTTP, as a context's cookies
    (`context.add_cookies`): a sign-in in Chromium costs a load of the form and one of the
    live view, about 2 CPU s, where the page under test is another."""
    client = server.signed_in_client(username)
    client.close()
    return [
        {"name": k, "value": v, "url": server.url, "httpOnly": k == "sessionid"}
        for k, v in client.cookies.items()
    ]


def screenshot(page, name, attempts=3):
    """test-artifacts/NAME.png, to look at after the run. Tried again after a pause: on a
    loaded machine headless Chromium sometimes has no frame to give yet and answers
    "Unable to capture screenshot" (Page.captureScreenshot)."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    for attempt in range(attempts):
        try:
            page.screenshot(path=str(path), full_page=False)
            return path
        except PlaywrightError as error:
            if "Unable to capture screenshot" not in error.message or attempt == attempts - 1:
                raise
            page.wait_for_timeout(500)


def wait_for_js(page, condition: str, timeout=30_000):
    """Until the JavaScript expression `condition` holds on the page. Polls on a timer: a
    busy page at 4K may draw too few frames for rAF polling. A function, not a bare
    expression, which Playwright would evaluate with eval (the page's CSP refuses)."""
    page.wait_for_function(f"() => {condition}", polling=250, timeout=timeout)
