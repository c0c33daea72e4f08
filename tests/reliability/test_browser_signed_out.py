"""A browser whose sign-in ended says "Signed out" and stops retrying, instead of trying to
reconnect for ever: the socket it reconnects with is closed with 4401, a code htmx's
websocket extension does not retry, and never refused at the handshake (which a browser
sees as 1006, which it does retry)."""

from dashboard.testing.browsers import screenshot, sign_in
from dashboard.testing.servers import start_dashboard


def test_a_page_whose_sign_in_ended_says_signed_out_after_a_restart(simulator, tmp_path, page):
    server = start_dashboard(simulator, tmp_path, people={"sam": "supervisor"})
    try:
        sign_in(page, server, "sam")
        page.wait_for_selector("#conn[data-state=live]")
        other = page.context.new_page()  # signs out in another tab; this page stays open
        other.goto(f"{server.url}/qa/")
        other.click("form.logout button")
        # Closing a tab while its navigation commits can hang Chromium's close for ever
        # (crbug.com/536385539): let the sign-out land on the sign-in page first.
        other.wait_for_url("**/accounts/login/**")
        other.wait_for_load_state()
        other.close()
        port = int(server.url.rsplit(":", 1)[1])
        server.stop()  # closes the page's socket with 1012: htmx reconnects by itself
        page.wait_for_selector("#conn:not([data-state=live])")
        server = start_dashboard(simulator, tmp_path, port=port)
        page.wait_for_selector("#conn[data-state=signed-out]", timeout=30000)
        assert "Signed out" in page.inner_text("#conn")
        assert page.locator("#conn a").is_visible()  # the way back to the sign-in page
        screenshot(page, "live-7-signed-out")
    finally:
        server.stop()
