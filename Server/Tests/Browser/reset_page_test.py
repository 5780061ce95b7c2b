#!/usr/bin/env python3
"""The reset journey without the app, in a real headless Chromium.

Runs the built `deeplinks` binary on a free loopback port with mail written to a folder, signs up,
asks for a reset link, reads it from the .eml file, and then, in Chromium:
  - opens the link like a scanner that runs scripts, and checks the token is still valid (P1);
  - opens it again, sees the form at once (P3), types a new password and submits it;
  - checks the token left the address bar, that no request went to another origin and that no
    request carried the token in its URL or a Referer header (P2, L3);
  - opens the used link and gets the "request a new link" form, prefilled (I5/P4).
Then the new password signs in, the old one and the other session do not (S1), and the server's
log holds no token. It runs twice: on the demo app's configuration (no address in the link), and on one that is
not (another domain, the reset route at /account/reset, its token called `code` and its address `mail`), whose
names the page must read. Then the dead ends real users met: the page without a token offers a link (with and
without JavaScript, the form posting to the page itself), a second link in the same tab (a hashchange) is read,
and what is hidden is not displayed.

Usage: reset_page_test.py PATH_TO_DEEPLINKS_BINARY
Skips, with the reason, when Chromium, chromedriver or selenium is missing; fails instead under CI.
"""
import email
import email.policy
import glob
import json
import os
import re
import sys
import time

from support import DEMO_CONFIG, EC, OTHER_CONFIG, By, Server, WebDriverWait, axe_violations, call, check, chromium, spam_score, wait_text

ADDRESS = "user+tag@example.com"
OLD = "violet tangerine submarine orbit"
NEW = "quiet lantern over maple ridge"
def wait_for_mail(folder, count, timeout=15):
    deadline = time.time() + timeout
    while time.time() < deadline:
        files = sorted(glob.glob(os.path.join(folder, "*.eml")))
        if len(files) >= count:
            return files
        time.sleep(0.1)
    raise SystemExit(f"no mail in {folder} after {timeout} s")


def text_part(path):
    message = email.message_from_bytes(open(path, "rb").read())
    for part in message.walk():
        if part.get_content_type() == "text/plain":
            return part.get_payload(decode=True).decode()
    return ""


def mail_checks(driver, path, work):
    """The reset mail parses under Python's strict policy, and its HTML part reads at phone and desktop widths."""
    raw = open(path, "rb").read()
    try:
        message = email.message_from_bytes(raw, policy=email.policy.strict)
        parts = list(message.walk())
        check(all(not part.defects for part in parts), "the mail parses under email.policy.strict without a defect")
    except Exception as error:  # strict raises on the first defect
        check(False, f"the mail parses under email.policy.strict ({error})")
        return
    html = next(part for part in parts if part.get_content_type() == "text/html").get_content()
    check('<html lang="en">' in html and "<title>" in html and 'name="viewport"' in html, "the HTML part has a language, a title and a viewport")
    page = os.path.join(work, "mail.html")
    open(page, "w").write(html)
    score, rules = spam_score(path)
    check(score <= 0, f"SpamAssassin (local rules) scores the mail {score} (at most 0): {rules}")
    screenshots = os.environ.get("DEEPLINKS_ARTIFACTS", work)
    os.makedirs(screenshots, exist_ok=True)
    for width in (390, 1280):
        driver.set_window_size(width, 1000)
        driver.get("file://" + page)
        button = driver.find_element(By.LINK_TEXT, "Choose a new password")
        check(button.is_displayed(), f"{width} px: the button shows")
        overflow = driver.execute_script("return document.documentElement.scrollWidth > window.innerWidth")
        check(not overflow, f"{width} px: nothing runs off the side")
        driver.save_screenshot(os.path.join(screenshots, f"reset-mail-{width}.png"))
        violations = axe_violations(driver)
        check(not violations, f"{width} px: axe-core finds no serious violation in the mail {violations}")
    driver.set_window_size(1000, 1400)


def dead_ends(binary):
    """The page as people reach it without a link, with a second link, and without JavaScript (demo app)."""
    print("reset page test, dead ends:")
    server = Server(binary, config=DEMO_CONFIG)
    base, mail = server.base, server.mail
    driver = plain = None
    try:
        check(call(base, "POST", "/v1/accounts", {"email": ADDRESS, "password": OLD})[0] == 201, "sign-up")
        driver = chromium()
        wait = WebDriverWait(driver, 10)
        # Where the "not you?" notice sends people: a neutral page that gets them a link.
        driver.get(base + "/reset-password")
        wait.until(EC.visibility_of_element_located((By.ID, "again-email")))
        check(driver.find_element(By.ID, "again-title").text == "Get a reset link", "no token: 'Get a reset link', not 'expired'")
        check(not driver.find_element(By.ID, "reset").is_displayed(), "no token: the password form is not displayed")
        check(not driver.find_elements(By.ID, "open-app"), "no same-domain 'Open in the app' button (it cannot open the app)")
        driver.find_element(By.ID, "again-email").send_keys(ADDRESS)
        driver.find_element(By.CSS_SELECTOR, "#again-form button").click()
        wait.until(lambda d: "on its way" in d.find_element(By.ID, "again-status").text)
        check(True, "the request is sent from the page, and says so")
        text = text_part(wait_for_mail(mail, 1)[0])
        first = re.search(r"#token=([A-Za-z0-9_-]+)", text).group(1)
        check(driver.current_url == base + "/reset-password", "the page stays (no 404)")
        # An address the server refuses (the field's own check turned off): the page says so, not "on its way".
        field = driver.find_element(By.ID, "again-email")
        driver.execute_script("arguments[0].type = 'text'", field)
        field.clear()
        field.send_keys("not an address")
        driver.find_element(By.CSS_SELECTOR, "#again-form button").click()
        wait.until(lambda d: "not an address we can send to" in d.find_element(By.ID, "again-status").text)
        check(True, "a refused request says so")
        # A link opened in the same tab: the fragment changes, the page reads it and takes it out of the bar.
        driver.execute_script("location.hash = arguments[0]", "token=" + first)
        wait.until(EC.visibility_of_element_located((By.ID, "password")))
        wait.until(lambda d: "For the account" in d.find_element(By.ID, "status").text)
        check(first not in driver.current_url, "hashchange: the new link is read and leaves the address bar")
        check(not driver.find_element(By.ID, "again").is_displayed(), "hidden sections are not displayed")
        # A second, newer link in the same tab replaces it.
        check(call(base, "POST", "/v1/password-resets", {"email": ADDRESS})[0] == 202, "a second request")
        second = re.search(r"#token=([A-Za-z0-9_-]+)", text_part(wait_for_mail(mail, 2)[-1])).group(1)
        driver.execute_script("location.hash = arguments[0]", "token=" + second)
        wait.until(lambda d: "For the account" in d.find_element(By.ID, "status").text)
        driver.find_element(By.ID, "password").send_keys(NEW)
        driver.find_element(By.CSS_SELECTOR, "#reset button[type=submit]").click()
        wait.until(EC.visibility_of_element_located((By.ID, "done")))
        check(not driver.find_element(By.ID, "reset").is_displayed(), "done: the form is gone")
        check(call(base, "POST", "/v1/sessions", {"email": ADDRESS, "password": NEW})[0] == 201, "the second link set the password")

        # Without JavaScript: the forms post to the page itself, which answers with the page.
        plain = chromium(javascript=False)
        plain.get(base + "/reset-password")
        plain.find_element(By.ID, "again-email").send_keys(ADDRESS)
        plain.find_element(By.CSS_SELECTOR, "#again-form button").click()
        # The click submits the form: the page is replaced (wait_text reads whichever page is shown).
        wait_text(plain, "#again-status", "on its way")
        check("404" not in plain.title and plain.current_url.startswith(base + "/reset-password"), "no script: the request is answered by the page")
        check(len(wait_for_mail(mail, 4)) >= 4, "no script: the mail is requested")
    finally:
        for browser in (driver, plain):
            if browser:
                browser.quit()
        log = server.stop()
    server.finish(log)


def main(binary, config, host, token_name, email_name):
    print(f"reset page test on {os.path.basename(os.path.dirname(config))}/{os.path.basename(config)}:")
    server = Server(binary, config=config)
    base, mail = server.base, server.mail
    driver = None
    try:
        check(call(base, "POST", "/v1/accounts", {"email": ADDRESS, "password": OLD})[0] == 201, "sign-up")
        other_device = call(base, "POST", "/v1/sessions", {"email": ADDRESS, "password": OLD})[1]["token"]
        check(call(base, "POST", "/v1/password-resets", {"email": ADDRESS})[0] == 202, "reset requested")
        text = text_part(wait_for_mail(mail, 1)[0])
        universal = next(line for line in text.splitlines() if line.startswith("https://"))
        check(universal.startswith(f"https://{host}/"), f"the link is on the configured domain {host}")
        token = re.search(rf"#{token_name}=([A-Za-z0-9_-]+)", universal).group(1)
        if email_name:
            check(f"{email_name}=user%2Btag%40example.com" in universal, "the address is percent-encoded in the link (+ as %2B)")
        else:
            check("example.com" not in universal.split("#")[1], "no address in the link unless configured")
        # The link's host is the configured domain; the browser reaches this server on loopback instead.
        link = base + universal[len(f"https://{host}"):]

        viewer = chromium()  # its own browser: the page checks below watch every request of theirs
        try:
            mail_checks(viewer, wait_for_mail(mail, 1)[0], server.work)
        finally:
            viewer.quit()
        driver = chromium()
        wait = WebDriverWait(driver, 10)

        # A scanner that runs the page's scripts and leaves: nothing is consumed.
        driver.get(link)
        wait.until(lambda d: "For the account" in d.find_element(By.ID, "status").text)
        check(call(base, "POST", "/v1/password-resets/verify", {"token": token})[0] == 200, "P1: a visit that runs the scripts leaves the token valid")
        check(token not in driver.current_url and token_name not in driver.current_url, "L3: the token left the address bar")

        # A person: the form is there at once, the new password is accepted.
        driver.get("about:blank")
        started = time.time()
        driver.get(link)
        password = wait.until(EC.visibility_of_element_located((By.ID, "password")))
        shown = time.time() - started
        check(shown <= 2, f"P3: the form is visible after {shown:.2f} s")
        check(password.get_attribute("autocomplete") == "new-password", "the field asks for a new password")
        check(driver.find_element(By.CSS_SELECTOR, "label[for=password]").text == "New password", "the field has a label")
        violations = axe_violations(driver)
        check(not violations, f"axe-core finds no serious violation on the reset page {violations}")
        wait.until(lambda d: "u***@example.com" in d.find_element(By.ID, "status").text)
        password.send_keys(NEW)
        driver.find_element(By.CSS_SELECTOR, "#reset button[type=submit]").click()
        wait.until(EC.visibility_of_element_located((By.ID, "done")))
        check(True, "the page says the password was changed")
        driver.save_screenshot(os.path.join(server.work, "done.png"))

        # The used link now offers a new one, prefilled. (From another page: a fragment change alone
        # would not load the page again.)
        driver.get("about:blank")
        driver.get(link)
        again = wait.until(EC.visibility_of_element_located((By.ID, "again-email")))
        check(driver.find_element(By.ID, "again-title").text == "This link has expired or was already used", "P4: a used link says so")
        expected = ADDRESS if email_name else ""
        check(again.get_attribute("value") == expected, f"P4: a used link offers a new one, the address prefilled ({expected!r}, + intact)")
        check(not driver.find_element(By.ID, "reset").is_displayed(), "the spent link's form is not displayed")

        requests = []
        for entry in driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message["method"] == "Network.requestWillBeSent":
                requests.append(message["params"]["request"])
        check(len(requests) >= 6, f"{len(requests)} requests observed")
        foreign = [r["url"] for r in requests if not (r["url"].startswith(base) or r["url"].startswith("about:") or r["url"].startswith("data:"))]
        check(not foreign, f"P2: no request left the origin {foreign}")
        check(not any(token in r["url"] for r in requests), "L3: no request URL carried the token")
        # Chromium lists an empty Referer when the policy suppressed it.
        referers = [v for r in requests for k, v in r.get("headers", {}).items() if k.lower() == "referer" and v]
        check(not referers, f"P2, L3: no request sent a Referer {referers}")

        check(call(base, "POST", "/v1/sessions", {"email": ADDRESS, "password": NEW})[0] == 201, "the new password signs in")
        check(call(base, "POST", "/v1/sessions", {"email": ADDRESS, "password": OLD})[0] == 401, "the old one does not")
        check(call(base, "GET", "/v1/me", bearer=other_device)[0] == 401, "S1: the other session was revoked")
        notices = [text_part(f) for f in wait_for_mail(mail, 2)]
        check(sum("was just changed" in n for n in notices) == 1, "S3: one notice")
    finally:
        if driver:
            driver.quit()
        log = server.stop()
    check(token not in log and NEW not in log and OLD not in log, "L3: the server's log holds no secret")
    server.finish(log)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    main(sys.argv[1], DEMO_CONFIG, "links.example.com", "token", None)
    main(sys.argv[1], OTHER_CONFIG, "shop.acme-corp.com", "code", "mail")
    dead_ends(sys.argv[1])
    print("reset page test: all checks passed")
