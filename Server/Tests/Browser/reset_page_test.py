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
log holds no token. It runs twice: on the demo app's configuration, and on one that is not (another domain, the
reset route at /account/reset, its token called `code` and its address `mail`), whose names the page must read.

Usage: reset_page_test.py PATH_TO_DEEPLINKS_BINARY
Skips, with the reason, when Chromium, chromedriver or selenium is missing; fails instead under CI.
"""
import email
import glob
import json
import os
import re
import sys
import time

from support import DEMO_CONFIG, EC, OTHER_CONFIG, By, Server, WebDriverWait, call, check, chromium

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
        check(f"{email_name}=user%2Btag%40example.com" in universal, "the address is percent-encoded in the link (+ as %2B)")
        # The link's host is the configured domain; the browser reaches this server on loopback instead.
        link = base + universal[len(f"https://{host}"):]

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
        check(again.get_attribute("value") == ADDRESS, "P4: an used link offers a new one, the address prefilled (+ intact)")

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
    main(sys.argv[1], DEMO_CONFIG, "links.example.com", "token", "email")
    main(sys.argv[1], OTHER_CONFIG, "shop.acme-corp.com", "code", "mail")
    print("reset page test: all checks passed")
