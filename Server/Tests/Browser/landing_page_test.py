#!/usr/bin/env python3
"""A smart link's landing page in a real headless Chromium: the deferred link and the iPad check.

Runs the built `deeplinks` binary with an admin key and creates links, then:
- opens a landing page as an iPhone would, taps "Get Demo on the App Store" and checks: the page asked for
  a one-time token and wrote https://LINK_DOMAIN/CODE#deferred=TOKEN to the clipboard before going on to the
  App Store; the app's redeem call answers the link's route once, then 410; the CSP blocked nothing;
- opens a link with Safari's Mac agent, with touch points (an iPad: its landing page) and without (a Mac: the
  desktop destination).

Usage: landing_page_test.py PATH_TO_DEEPLINKS_BINARY
"""
import re
import sqlite3
import sys
import time

from support import By, Server, call, check, chromium

KEY = "browser-test-admin-key-0123456789abcdef"
MAC = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15"
IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"


def main(binary):
    server = Server(binary, {"DEEPLINKS_ADMIN_KEY": KEY})
    base = server.base
    driver = None
    token = None
    try:
        status, _ = call(base, "POST", "/v1/links", {"code": "summer", "route": "/post/10"}, bearer=KEY)
        check(status == 201, "the link is created")

        driver = chromium()
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.setUserAgentOverride", {"userAgent": IPHONE})
        driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": base, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
        driver.get(base + "/summer")
        button = driver.find_element(By.ID, "get-app")
        check(button.get_attribute("href") == "https://apps.apple.com/app/id1234567890", "the button goes to the App Store")
        started = time.monotonic()
        button.click()
        while time.monotonic() - started < 5 and "apps.apple.com" not in driver.current_url:
            time.sleep(0.05)
        elapsed = time.monotonic() - started
        check("apps.apple.com" in driver.current_url, f"the tap goes on to the App Store ({elapsed:.2f} s)")

        rows = sqlite3.connect(server.database).execute("SELECT code FROM deferred_links").fetchall()
        check(rows == [("summer",)], "the page asked for one token, for this link")

        driver.get(base + "/robots.txt")
        pasted = driver.execute_async_script(
            "const done = arguments[0]; navigator.clipboard.readText().then(done, e => done('ERROR ' + e));"
        )
        match = re.fullmatch(r"https://links\.example\.com/summer#deferred=([A-Za-z0-9_-]{22})", pasted or "")
        check(match is not None, f"the clipboard holds the deferred link ({pasted!r})")

        if match:
            token = match.group(1)
            status, body = call(base, "POST", "/v1/deferred/redeem", {"token": token})
            check(status == 200 and body.get("route") == "/post/10", f"the app redeems it for the route ({status} {body})")
            status, body = call(base, "POST", "/v1/deferred/redeem", {"token": token})
            check(status == 410, "once only")

        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE" and "apps.apple.com" not in e["message"]]
        check(not errors, f"no console error, no CSP violation ({errors})")
        driver.quit()

        # iPadOS Safari sends a Mac agent: the page's touch check tells an iPad from a Mac.
        status, _ = call(base, "POST", "/v1/links", {"code": "web", "route": "/post/11", "destinations": {"desktop": "https://links.example.com/web/11"}}, bearer=KEY)
        check(status == 201, "a link with a desktop destination is created")
        for touch, expected in [(5, "ipad"), (0, "mac")]:
            driver = chromium()
            driver.execute_cdp_cmd("Network.enable", {})
            driver.execute_cdp_cmd("Network.setUserAgentOverride", {"userAgent": MAC})
            driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": touch > 0, "maxTouchPoints": max(touch, 1)})
            driver.get(base + "/web?utm_source=news")
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and "_platform" not in driver.current_url and "links.example.com" not in driver.current_url:
                time.sleep(0.05)
            if expected == "ipad":
                check(driver.current_url == base + "/web?utm_source=news&_platform=ipad", f"with touch: back as an iPad ({driver.current_url})")
                check('name="apple-itunes-app"' in driver.page_source, "an iPad gets the landing page with the Smart App Banner")
            else:
                check(driver.current_url.startswith("https://links.example.com/web/11?utm_source=news"), f"without touch: the desktop destination ({driver.current_url})")
            driver.quit()
        driver = None
    finally:
        if driver:
            driver.quit()
        log = server.stop()
    check(token is None or token not in log, "the token is in no log line")
    server.finish(log)


if __name__ == "__main__":
    main(sys.argv[1])
