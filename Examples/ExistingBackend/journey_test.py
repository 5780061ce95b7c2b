#!/usr/bin/env python3
"""The reset journey with the accounts in an existing backend (backend.py), end to end, on real processes.

Starts the example backend and the built `deeplinks serve` (external accounts, mail to a folder) on free
loopback ports, then:
1. the user asks on our page (Chromium): the lookup hook finds the user, the mail's link is the app's
   reset route (`deeplinks open`), the web form sets the password through the password hook, and the
   user's other session is ended by the backend;
2. the backend asks (`/forgot` -> `POST /v1/reset-links`), the mailed link's token goes to the backend's
   own `/reset`, which consumes it (`/v1/reset-links/consume`); and `deliver: "return"` puts the link in the
   backend's own mail;
3. the faults: the password hook down (503, the link still works), slow (503 at the timeout), a wrong
   signature and a replayed request refused by the backend, a lookup that fails then succeeds (mail once).

    python3 Examples/ExistingBackend/journey_test.py .build/debug/deeplinks
"""
import base64
import email
import email.policy
import glob
import hashlib
import hmac
import json
import os
import re
import secrets
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "Server", "Tests", "Browser"))
from support import EC, By, Server, WebDriverWait, call, check, chromium, failures, free_port  # noqa: E402

ADDRESS = "grace@example.com"
OLD = "the old passphrase we had"
NEW = "violet harbour lantern morning"
ADMIN = "journey-admin-key-" + secrets.token_hex(8)
HOOK_SECRET = "1:" + base64.b64encode(os.urandom(32)).decode()


def mails(folder):
    return sorted(glob.glob(os.path.join(folder, "*.eml")))


def wait_for_mail(folder, count, timeout=20):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if len(mails(folder)) >= count:
            return mails(folder)
        time.sleep(0.1)
    raise SystemExit(f"expected {count} mails in {folder}, found {len(mails(folder))}")


def link_in(path):
    message = email.message_from_bytes(open(path, "rb").read(), policy=email.policy.default)
    text = message.get_body(preferencelist=("plain",)).get_content()
    return re.search(r"https://links\.example\.com/reset-password#token=[A-Za-z0-9_-]+", text).group(0)


def signed(body, secret=HOOK_SECRET, nonce=None, stamp=None, purpose="hook:lookup"):
    stamp = stamp or int(time.time())
    nonce = nonce or secrets.token_urlsafe(16)
    key = base64.b64decode(secret.split(":", 1)[1])
    mac = hmac.new(key, f"{stamp}.{nonce}.{purpose}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={stamp},n={nonce},v2={mac}"


def post_raw(url, body, signature):
    request = urllib.request.Request(url, data=body, method="POST")
    request.add_header("Content-Type", "application/json")
    request.add_header("Deeplinks-Signature", signature)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def main(binary):
    work = os.path.join("/tmp", "deeplinks-backend-" + secrets.token_hex(4))
    os.makedirs(work)
    backend_port = free_port()
    backend = f"http://127.0.0.1:{backend_port}"
    demo = json.load(open(os.path.join(HERE, "..", "..", "Server", "Examples", "demo-app.json")))
    demo["app"]["routes"] = os.path.abspath(os.path.join(HERE, "..", "..", "Server", "Examples", "demo-routes.json"))
    demo["accounts"] = {"mode": "external", "backend": backend, "timeoutSeconds": 2}
    config = os.path.join(work, "app.json")
    json.dump(demo, open(config, "w"))

    server = Server(binary, config=config, environment={"DEEPLINKS_HOOK_SECRETS": HOOK_SECRET, "DEEPLINKS_ADMIN_KEY": ADMIN})
    outbox = os.path.join(work, "backend-mail")
    backend_process = subprocess.Popen(
        [sys.executable, os.path.join(HERE, "backend.py")],
        env=dict(os.environ, PORT=str(backend_port), DATABASE=os.path.join(work, "backend.sqlite"), DEEPLINKS_URL=server.base,
                 DEEPLINKS_ADMIN_KEY=ADMIN, DEEPLINKS_HOOK_SECRETS=HOOK_SECRET, OUTBOX=outbox, TEST_CONTROLS="1"),
        stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "backend.log"), "w"),
    )
    for _ in range(100):
        try:
            urllib.request.urlopen(backend + "/_stats", timeout=1)
            break
        except OSError:
            time.sleep(0.1)
    base, mail = server.base, server.mail
    driver = None
    try:
        print("external accounts, the example backend:")
        check(call(backend, "POST", "/signup", {"email": ADDRESS, "password": OLD})[0] == 201, "sign-up at the backend")
        other_device = call(backend, "POST", "/login", {"email": ADDRESS, "password": OLD})[1]["session"]
        check(call(base, "POST", "/v1/accounts", {"email": "x@example.com", "password": OLD})[1].get("error") == "accounts_are_external",
              "our own sign-up is off")

        # 1. The user asks on our page, in Chromium, and finishes on the web form.
        driver = chromium()
        wait = WebDriverWait(driver, 15)
        driver.get(base + "/reset-password")
        field = wait.until(EC.visibility_of_element_located((By.ID, "again-email")))
        field.send_keys(ADDRESS)
        driver.find_element(By.CSS_SELECTOR, "#again-form button[type=submit]").click()
        wait.until(lambda d: "on its way" in d.find_element(By.ID, "again-status").text)
        link = link_in(wait_for_mail(mail, 1)[0])
        opened = json.loads(subprocess.run([binary, "open", link, "--config", config, "--json"], capture_output=True, text=True).stdout)
        check(opened.get("route") == "reset-password", f"the mailed link opens the app's reset route ({opened.get('route')})")
        token = link.split("#token=")[1]
        driver.get("about:blank")
        driver.get(base + link[len("https://links.example.com"):])
        password = wait.until(EC.visibility_of_element_located((By.ID, "password")))
        password.send_keys(NEW)
        driver.find_element(By.CSS_SELECTOR, "#reset button[type=submit]").click()
        wait.until(EC.visibility_of_element_located((By.ID, "done")))
        check(True, "the web form set the password through the password hook")
        check(call(backend, "POST", "/login", {"email": ADDRESS, "password": NEW})[0] == 200, "the new password signs in at the backend")
        check(call(backend, "POST", "/login", {"email": ADDRESS, "password": OLD})[0] == 401, "the old one does not")
        check(call(backend, "GET", "/me", bearer=other_device)[0] == 401, "the backend ended the other session")
        check(call(base, "POST", "/v1/password-resets/verify", {"token": token})[0] == 400, "the link is spent")

        # 2. The backend asks; the app posts the new password to the backend, which consumes the token.
        check(call(backend, "POST", "/forgot", {"email": ADDRESS})[0] == 202, "the backend asks for a link")
        files = wait_for_mail(mail, 3)  # the notice of step 1, then the link
        token = link_in(files[-1]).split("#token=")[1]
        check(call(backend, "POST", "/reset", {"token": token, "password": OLD})[0] == 204, "the backend consumed the token and set the password")
        check(call(backend, "POST", "/reset", {"token": token, "password": OLD})[0] == 400, "a token is consumed once")
        check(call(backend, "POST", "/login", {"email": ADDRESS, "password": OLD})[0] == 200, "the password the app sent signs in")
        check(call(backend, "POST", "/forgot", {"email": ADDRESS, "deliver": "return"})[0] == 202, "the backend asks for a link to mail itself")
        own = glob.glob(os.path.join(outbox, "*.txt"))
        check(len(own) == 1 and "https://links.example.com/reset-password#token=" in open(own[0]).read(), "the link is in the backend's own mail")
        returned = re.search(r"#token=([A-Za-z0-9_-]+)", open(own[0]).read()).group(1)
        session = call(backend, "POST", "/login", {"email": ADDRESS, "password": OLD})[1]["session"]
        check(call(backend, "POST", "/password", {"newPassword": NEW}, bearer=session)[0] == 204, "a signed-in password change at the backend")
        check(call(base, "POST", "/v1/password-resets/verify", {"token": returned})[0] == 400, "it ended the earlier reset link (revoke)")

        # 3. Faults.
        check(call(backend, "POST", "/forgot", {"email": ADDRESS})[0] == 202, "another link")
        token = link_in(wait_for_mail(mail, 5)[-1]).split("#token=")[1]
        call(backend, "POST", "/_faults", {"password_down": True})
        answer = call(base, "POST", "/v1/password-resets/confirm", {"token": token, "password": "yet another passphrase"})
        check(answer[0] == 503 and answer[1].get("error") == "accounts_backend_unavailable", f"the hook down: a retryable 503 ({answer[0]})")
        check(call(base, "POST", "/v1/password-resets/verify", {"token": token})[0] == 200, "the link still works")
        call(backend, "POST", "/_faults", {"password_down": False, "password_delay": 3.5})
        started = time.time()
        answer = call(base, "POST", "/v1/password-resets/confirm", {"token": token, "password": "yet another passphrase"})
        check(answer[0] == 503 and time.time() - started < 3.5, f"the hook slow: 503 at the 2 s timeout ({answer[0]}, {time.time() - started:.1f} s)")
        call(backend, "POST", "/_faults", {"password_delay": 0})
        time.sleep(2)
        check(call(base, "POST", "/v1/password-resets/confirm", {"token": token, "password": "yet another passphrase"})[0] == 204,
              "the same link works once the hook is back")

        body = json.dumps({"email": ADDRESS}).encode()
        check(post_raw(backend + "/deeplinks/lookup", body, signed(body, secret="1:" + base64.b64encode(os.urandom(32)).decode())) == 401,
              "the backend refuses a wrong signature")
        check(post_raw(backend + "/deeplinks/lookup", body, signed(body, stamp=int(time.time()) - 3600)) == 401,
              "the backend refuses an old timestamp")
        # Signed for another purpose (a webhook event, another hook): the same secret, refused.
        for purpose in ("webhook", "hook:password"):
            check(post_raw(backend + "/deeplinks/lookup", body, signed(body, purpose=purpose)) == 401,
                  f"the backend refuses a signature made for {purpose}")
        signature = signed(body)
        check(post_raw(backend + "/deeplinks/lookup", body, signature) == 200, "a signed lookup is answered")
        check(post_raw(backend + "/deeplinks/lookup", body, signature) == 401, "the same request replayed is refused")

        # Another user: Grace had the three mails per 15 minutes the per-address throttle allows.
        check(call(backend, "POST", "/signup", {"email": "ada@example.com", "password": OLD})[0] == 201, "a second user")
        time.sleep(1)  # the notice of the last confirmation arrives first
        before = len(mails(mail))
        lookups = call(backend, "GET", "/_stats")[1]["lookups"]
        call(backend, "POST", "/_faults", {"lookup_failures": 1})
        check(call(base, "POST", "/v1/password-resets", {"email": "ada@example.com"})[0] == 202, "a request while the lookup fails: the same answer")
        wait_for_mail(mail, before + 1, timeout=20)
        time.sleep(3)
        check(len(mails(mail)) == before + 1, "the lookup failed, was retried, and the mail went once")
        stats = call(backend, "GET", "/_stats")[1]
        check(stats["lookups"] - lookups == 2, f"two lookups: the failure and the retry ({stats['lookups'] - lookups})")
        check(stats["refused_signatures"] == 5, "the server's own hook calls were all signed (only the five forged ones refused)")
    finally:
        if driver:
            driver.quit()
        backend_process.terminate()
        log = server.stop()
    for secret in (NEW, OLD, "yet another passphrase"):
        check(secret not in log, "no password in the server's log")
    server.finish(log)
    print("journey with the example backend: all checks passed" if not failures else "")


if __name__ == "__main__":
    main(sys.argv[1])
