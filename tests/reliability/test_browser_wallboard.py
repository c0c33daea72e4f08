"""A manager makes a wallboard link in Chromium, a TV opens it without signing in and
follows the floor live, and revoking the link tells the TV so within 5 s.

Layout at 1080p and 4K, rotation, the stale overlay and reloading on a deploy are
tests/wallboard/test_browser.py's."""

from dashboard.testing.browsers import screenshot, sign_in


def test_a_manager_opens_a_wallboard_link_and_revokes_it(dashboard_server, page, browser):
    server = dashboard_server
    sign_in(page, server, server.add_user("mo", "manager"))
    page.goto(f"{server.url}/wallboards/")
    page.fill("#id_name", "Sales floor TV")
    page.get_by_role("button", name="Create link").click()
    url = page.input_value("#new-link-url", timeout=10_000)
    assert url.startswith(f"{server.url}/wallboard/")
    screenshot(page, "wallboard-1-link-made")

    tv_context = browser.new_context(viewport={"width": 1920, "height": 1080})
    try:
        tv = tv_context.new_page()
        tv.goto(url)
        tv.wait_for_selector("#conn[data-state=live]", timeout=15_000)
        tv.wait_for_selector("#agents .agent", state="attached", timeout=15_000)
        assert tv.locator(".wb-panel:not([hidden])").count() == 1
        screenshot(tv, "wallboard-2-on-the-tv")

        page.goto(f"{server.url}/wallboards/")
        row = page.locator("tr", has_text="Sales floor TV")
        row.get_by_role("button", name="Revoke").click()
        page.wait_for_load_state()
        assert "Revoked" in page.locator("tr", has_text="Sales floor TV").inner_text()
        # The socket closes within 5 s (tests/wallboard/test_socket.py); generous here, under load.
        tv.wait_for_selector('#wallboard-closed[data-reason="revoked"]', timeout=10_000)
        assert "revoked" in tv.locator("#wallboard-closed").inner_text()
        screenshot(tv, "wallboard-3-revoked")
    finally:
        tv_context.close()
