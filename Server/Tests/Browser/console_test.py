#!/usr/bin/env python3
"""The web console in a real headless Chromium, against the built `deeplinks serve` on SQLite.

Operators are added with `deeplinks operators create` (the password on standard input). Checks: /console sends
a stranger to sign-in; a wrong password is refused; the session cookie is Secure, HttpOnly and SameSite=Strict;
an editor creates a link (the route checked against the app's manifest: a route the app lacks is refused with
the validator's message beside the field, and nothing is written), edits it, reads its page (chart, QR code
decoded by zbarimg from the screenshot), deletes it after the confirmation page (the short link is then 404);
a form whose CSRF token was altered is refused and changes nothing; a viewer sees no edit button and is refused
the edit page and the edit post; an admin creates a scoped key (a viewer's: reads the API, refused a create),
revokes it (then 401), adds an operator who signs in, and removes them (their session ends); an editor uploads another system's export (checked first, nothing written; then imported, a report per row); the association page answers "does this URL open the app?" with the matcher's verdict,
trace and the manifest's route and parameters; the doctor page names a mail scanner's rewrite. Every page: no CSP violation, no serious axe-core finding.
Screenshots of each page go to $DEEPLINKS_ARTIFACTS/console (CI keeps them).

Usage: console_test.py PATH_TO_DEEPLINKS_BINARY
"""
import os
import shutil
import subprocess
import sys
import urllib.error
import urllib.request

from selenium.webdriver.support.ui import Select
from support import EC, By, Server, WebDriverWait, axe_violations, call, check, chromium, skip_or_fail, wait_text

PASSWORD = "tangerine-orbit-91-lantern"


def add_operator(binary, server, email, role):
    result = subprocess.run(
        [binary, "operators", "create", email, "--role", role, "--database-url", f"sqlite:{server.database}", "--log-level", "error"],
        input=PASSWORD + "\n", capture_output=True, text=True, timeout=60,
    )
    check(result.returncode == 0, f"deeplinks operators create {email} --role {role}: {result.stdout.strip()} {result.stderr.strip()}")


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def status_of(url, headers=None):
    """The status of a GET, its redirect not followed."""
    try:
        return urllib.request.build_opener(NoRedirect).open(urllib.request.Request(url, headers=headers or {}), timeout=10).status
    except urllib.error.HTTPError as error:
        return error.code


class Console:
    def __init__(self, server, shots):
        self.server = server
        self.shots = shots
        self.driver = chromium()
        self.wait = WebDriverWait(self.driver, 10)

    def open(self, path):
        self.driver.get(self.server.base + path)

    def sign_in(self, email, password=PASSWORD):
        self.open("/console/sign-in")
        self.driver.find_element(By.ID, "email").send_keys(email)
        self.driver.find_element(By.ID, "password").send_keys(password)
        self.driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()

    def text(self):
        return self.driver.find_element(By.TAG_NAME, "body").text

    def shoot(self, name):
        """A screenshot for the artifacts, and the page's checks: no CSP violation, no serious axe finding."""
        self.driver.save_screenshot(os.path.join(self.shots, f"{name}.png"))
        errors = [e for e in self.driver.get_log("browser") if e["level"] == "SEVERE" and "status of 4" not in e["message"]]
        check(not errors, f"{name}: no console error, no CSP violation ({errors})")
        violations = axe_violations(self.driver)
        check(not violations, f"{name}: no serious or critical axe-core finding ({violations})")

    def wait_text(self, selector, text, present=True):
        """Waits until the element holds `text` (or no longer does), read from whichever page a form post left."""
        wait_text(self.driver, selector, text, present)

    def fill(self, field_id, value):
        element = self.driver.find_element(By.ID, field_id)
        element.clear()
        element.send_keys(value)

    def submit(self, selector="main form button[type=submit]"):
        self.driver.find_element(By.CSS_SELECTOR, selector).click()

    def quit(self):
        self.driver.quit()


def main(binary):
    if not shutil.which("zbarimg"):
        skip_or_fail("Debian's zbar-tools (zbarimg) is not installed")
    server = Server(binary)
    base = server.base
    shots = os.path.join(os.environ.get("DEEPLINKS_ARTIFACTS", server.work), "console")
    os.makedirs(shots, exist_ok=True)
    for email, role in [("admin@example.com", "admin"), ("editor@example.com", "editor"), ("viewer@example.com", "viewer")]:
        add_operator(binary, server, email, role)
    consoles = []
    try:
        # --- A stranger, then an editor -------------------------------------------------------------------
        editor = Console(server, shots)
        consoles.append(editor)
        editor.open("/console/links")
        check(editor.driver.current_url.startswith(base + "/console/sign-in"), f"a stranger is sent to sign in ({editor.driver.current_url})")
        editor.shoot("sign-in")
        editor.sign_in("editor@example.com", "not-the-password")
        editor.wait_text("#sign-in-error", "The email or the password is wrong.")
        check("The email or the password is wrong." in editor.driver.find_element(By.ID, "sign-in-error").text, "a wrong password is refused")
        editor.sign_in("editor@example.com")
        editor.wait.until(EC.presence_of_element_located((By.ID, "links")))
        check(editor.driver.current_url.endswith("/console/links"), "signed in: the links page")
        cookie = editor.driver.get_cookie("deeplinks_console")
        check(cookie is not None and cookie["secure"] and cookie["httpOnly"] and cookie["sameSite"] == "Strict",
              f"the session cookie is Secure, HttpOnly, SameSite=Strict ({cookie})")

        # A route the app has no screen for: refused beside the field, nothing written.
        editor.open("/console/new")
        editor.fill("code", "spring-sale")
        editor.fill("route", "/nowhere/at/all")
        editor.fill("destinations-fallback", "https://links.example.com/sale")
        editor.submit()
        editor.wait.until(EC.presence_of_element_located((By.ID, "form-error")))
        route_error = editor.driver.find_element(By.ID, "route-error").text
        check("the app has no route for /nowhere/at/all" in route_error, f"the validator's message beside the route field ({route_error!r})")
        check(editor.driver.find_element(By.ID, "route").get_attribute("aria-invalid") == "true", "the route field is marked invalid")
        check(editor.driver.find_element(By.ID, "destinations-fallback").get_attribute("value") == "https://links.example.com/sale",
              "the other fields keep what was typed")
        editor.shoot("link-invalid")
        check(status_of(base + "/spring-sale") == 404, "the refused link was not written")
        editor.fill("route", "/post/7")
        editor.fill("destinations-fallback", "https://evil.example.net/")
        editor.submit()
        editor.wait.until(EC.presence_of_element_located((By.ID, "destinations-fallback-error")))
        check("not on the destination allowlist" in editor.driver.find_element(By.ID, "destinations-fallback-error").text,
              "a destination off the allowlist is refused beside its field")
        editor.fill("destinations-fallback", "https://links.example.com/sale")
        editor.fill("preview-title", "Spring sale")
        editor.submit()
        editor.wait.until(EC.presence_of_element_located((By.ID, "details")))
        check(editor.driver.current_url.endswith("/console/links/spring-sale"), "created: the link's page")
        check(status_of(base + "/spring-sale") == 302, "the new short link redirects")

        # Its page: the QR code decodes to the tagged short link.
        qr = os.path.join(server.work, "qr.png")
        editor.driver.find_element(By.CSS_SELECTOR, "#qr svg").screenshot(qr)
        decoded = subprocess.run(["zbarimg", "--raw", "-q", qr], capture_output=True, text=True, timeout=30).stdout.strip()
        check(decoded == "https://links.example.com/spring-sale?qr=1", f"the page's QR code decodes to the tagged link ({decoded!r})")
        check(editor.driver.find_element(By.ID, "chart") is not None, "the page has the click chart")
        editor.shoot("link-page")

        # Edit it.
        editor.driver.find_element(By.ID, "edit").click()
        editor.wait.until(EC.presence_of_element_located((By.ID, "preview-title")))
        editor.fill("preview-title", "Spring sale: 20% off")
        editor.shoot("link-edit")
        editor.submit()
        editor.wait.until(EC.presence_of_element_located((By.ID, "details")))
        check("Spring sale: 20% off" in editor.text(), "the edit is saved and shown")

        # A form whose CSRF token was altered (as a forged post would carry): refused, nothing changed.
        editor.open("/console/links/spring-sale/edit")
        editor.fill("preview-title", "Forged")
        editor.driver.execute_script("document.querySelector('main input[name=csrf]').value = 'forged'")
        editor.submit()
        editor.wait_text("main h1", "Form refused")
        check("Form refused" in editor.driver.find_element(By.CSS_SELECTOR, "main h1").text, "a wrong CSRF token is refused")
        editor.shoot("csrf-refused")
        editor.open("/console/links/spring-sale")
        check("Forged" not in editor.text() and "Spring sale: 20% off" in editor.text(), "the refused form changed nothing")

        # Search.
        editor.open("/console/links?q=SPRING")
        check(len(editor.driver.find_elements(By.CSS_SELECTOR, "#links tbody a")) == 1, "a search finds the link, in any case")
        editor.open("/console/links?q=autumn")
        check(len(editor.driver.find_elements(By.CSS_SELECTOR, "#links tbody a")) == 0, "a search for another word finds nothing")

        # A web link: no route, its web address as the fallback; every platform is sent there.
        editor.open("/console/new")
        editor.fill("code", "shop-web")
        editor.fill("destinations-fallback", "https://links.example.com/shop")
        editor.submit()
        editor.wait.until(EC.presence_of_element_located((By.ID, "details")))
        check("a web link" in editor.driver.find_element(By.ID, "details").text, "the page says it is a web link")
        check(status_of(base + "/shop-web") == 302, "the web link redirects")

        # Another system's export, uploaded: checked first (nothing written), then imported, a report per row.
        export = os.path.join(server.work, "links-export.csv")
        with open(export, "w", encoding="utf-8") as file:
            file.write("code,route,fallback\nimported-a,/post/11,https://links.example.com/a\nimported-b,/post/12,\nbroken,/nowhere,\n")
        editor.open("/console/links")
        editor.driver.find_element(By.CSS_SELECTOR, "a[href='/console/import']").click()
        editor.wait.until(EC.presence_of_element_located((By.ID, "file")))
        check(editor.driver.find_element(By.ID, "dryRun").is_selected(), "the import form first only checks")
        editor.driver.find_element(By.ID, "file").send_keys(export)
        editor.shoot("import-form")
        editor.submit()
        editor.wait_text("#import-summary", "Checked only")
        summary = editor.driver.find_element(By.ID, "import-summary").text
        check("2 valid, 1 refused." in summary, f"the check's summary ({summary!r})")
        check("the app has no route for /nowhere" in editor.text(), "the refused row's problem is shown")
        check(status_of(base + "/imported-a") == 404, "a check writes nothing")
        editor.shoot("import-checked")
        editor.open("/console/import")
        editor.driver.find_element(By.ID, "file").send_keys(export)
        editor.driver.find_element(By.ID, "dryRun").click()
        editor.submit()
        editor.wait_text("#import-summary", "The import is done.")
        summary = editor.driver.find_element(By.ID, "import-summary").text
        check("2 imported, 1 refused." in summary, f"the import's summary ({summary!r})")
        statuses = (status_of(base + "/imported-a"), status_of(base + "/imported-b"), status_of(base + "/broken"))
        check(statuses == (302, 200, 404), f"imported: a redirects to its fallback, b (none) shows its landing page; the refused row is not a link ({statuses})")
        editor.shoot("import-report")
        editor.driver.find_element(By.CSS_SELECTOR, "#import-rows a[href='/console/links/imported-a']").click()
        editor.wait.until(EC.presence_of_element_located((By.ID, "details")))
        check(editor.driver.current_url.endswith("/console/links/imported-a"), "the report links each imported link's page")

        # --- A viewer -------------------------------------------------------------------------------------
        viewer = Console(server, shots)
        consoles.append(viewer)
        viewer.sign_in("viewer@example.com")
        viewer.wait.until(EC.presence_of_element_located((By.ID, "links")))
        viewer.open("/console/links/spring-sale")
        check(not viewer.driver.find_elements(By.ID, "edit"), "a viewer's link page has no edit button")
        viewer.open("/console/links/spring-sale/edit")
        check("Not allowed" in viewer.text(), "a viewer is refused the edit page")
        viewer.shoot("viewer-refused")
        # A delete posted with the viewer's own session and token: refused on the server.
        viewer.open("/console/links")
        viewer_csrf = viewer.driver.find_element(By.CSS_SELECTOR, "header input[name=csrf]").get_attribute("value")
        viewer.driver.execute_script(
            "var f = document.createElement('form'); f.method = 'post'; f.action = '/console/links/spring-sale/delete';"
            "var i = document.createElement('input'); i.name = 'csrf'; i.value = arguments[0]; f.appendChild(i);"
            "document.body.appendChild(f); f.submit();", viewer_csrf)
        viewer.wait_text("main h1", "Not allowed")
        check(status_of(base + "/spring-sale") == 302, "a viewer's delete is refused on the server")
        viewer.open("/console/keys")
        check("Not allowed" in viewer.text(), "a viewer is refused the keys page")

        # --- The association page -------------------------------------------------------------------------
        viewer.open("/console/association?url=" + urllib.request.quote("https://links.example.com/post/42", safe=""))
        verdict = viewer.driver.find_element(By.ID, "verdict").text
        check("Opens the app" in verdict and "post" in verdict and "id = 42" in verdict,
              f"https://links.example.com/post/42 opens the app, route post with id 42 ({verdict!r})")
        viewer.shoot("association")
        viewer.open("/console/association?url=" + urllib.request.quote("https://links.example.com/account/settings", safe=""))
        verdict = viewer.driver.find_element(By.ID, "verdict").text
        check("Does not open the app" in verdict, f"an excluded path does not open the app ({verdict!r})")

        # --- Why didn't it open? (answers that need no network: the rewrite and a foreign domain) ------------
        wrapped = "https://eur01.safelinks.protection.outlook.com/?url=" + urllib.request.quote("https://links.example.com/post/42", safe="") + "&data=x"
        viewer.open("/console/doctor")
        viewer.fill("url", wrapped)
        viewer.submit()
        # The page answers once the doctor has asked the app's domain and Apple's CDN for the file (at once, each
        # with a 5 s timeout; on a machine without network, name resolution may take longer).
        WebDriverWait(viewer.driver, 40).until(EC.presence_of_element_located((By.ID, "diagnosis")))
        diagnosis = viewer.driver.find_element(By.ID, "diagnosis").text
        check("MAIL_SCANNER_REWRITE" in diagnosis and "Microsoft Defender Safe Links" in diagnosis and "Opens Safari" in diagnosis,
              f"the doctor names the mail scanner's rewrite ({diagnosis[:300]!r})")
        viewer.shoot("doctor")
        viewer.open("/console/doctor?url=" + urllib.request.quote("https://elsewhere.example.org/x", safe=""))
        check("DOMAIN_NOT_CONFIGURED" in viewer.driver.find_element(By.ID, "diagnosis").text, "a foreign domain is named, not fetched")

        # --- Delete, as the editor ------------------------------------------------------------------------
        editor.open("/console/links/spring-sale")
        editor.driver.find_element(By.ID, "delete").click()
        editor.wait.until(EC.presence_of_element_located((By.ID, "confirm-delete")))
        check(status_of(base + "/spring-sale") == 302, "the confirmation page deletes nothing")
        editor.shoot("link-delete")
        editor.driver.find_element(By.ID, "confirm-delete").click()
        editor.wait.until(EC.presence_of_element_located((By.ID, "links")))
        check("The link spring-sale was deleted." in editor.text(), "deleted: the list says so")
        check(status_of(base + "/spring-sale") == 404, "the deleted short link is gone")

        # --- An admin's API keys --------------------------------------------------------------------------
        admin = Console(server, shots)
        consoles.append(admin)
        admin.sign_in("admin@example.com")
        admin.wait.until(EC.presence_of_element_located((By.ID, "links")))
        admin.open("/console/keys")
        admin.fill("name", "dashboard")
        Select(admin.driver.find_element(By.ID, "role")).select_by_visible_text("viewer")
        admin.submit("main form[action='/console/keys'] button")
        admin.wait.until(EC.presence_of_element_located((By.ID, "secret")))
        key = admin.driver.find_element(By.ID, "secret").text
        admin.shoot("keys")
        status, _ = call(base, "GET", "/v1/links", bearer=key)
        check(status == 200, f"the viewer key reads the links API ({status})")
        status, body = call(base, "POST", "/v1/links", {"route": "/post/1"}, bearer=key)
        check(status == 403 and body.get("error") == "forbidden", f"the viewer key is refused a create ({status} {body})")
        admin.open("/console/keys")
        check("never" not in admin.driver.find_element(By.ID, "keys").text, "the key's last use is shown")
        admin.driver.find_element(By.CSS_SELECTOR, "#keys button").click()
        admin.wait_text("#keys", "revoked")
        check("revoked" in admin.driver.find_element(By.ID, "keys").text, "the key is revoked")
        status, _ = call(base, "GET", "/v1/links", bearer=key)
        check(status == 401, f"a revoked key is refused ({status})")

        # An admin adds an operator, who signs in, and removes them: their session ends.
        admin.open("/console/keys")
        admin.fill("operator-email", "new@example.com")
        Select(admin.driver.find_element(By.ID, "operator-role")).select_by_visible_text("editor")
        admin.fill("operator-password", PASSWORD)
        admin.submit("main form[action='/console/operators'] button")
        admin.wait_text("#operators", "new@example.com")
        newcomer = Console(server, shots)
        consoles.append(newcomer)
        newcomer.sign_in("new@example.com")
        newcomer.wait.until(EC.presence_of_element_located((By.ID, "links")))
        check(newcomer.driver.find_elements(By.CSS_SELECTOR, "a[href='/console/new']") != [], "the added editor signs in and may create links")
        admin.driver.find_element(By.CSS_SELECTOR, "#operators button[aria-label='Remove new@example.com']").click()
        admin.wait_text("#operators", "new@example.com", present=False)
        check("operator.removed" in admin.driver.find_element(By.ID, "audit").text, "the removal is in the audit")
        newcomer.open("/console/links")
        check("/console/sign-in" in newcomer.driver.current_url, "a removed operator's session ends")
        check("(you)" in admin.driver.find_element(By.ID, "operators").text, "an admin cannot remove themselves")

        # Sign out: the session ends on the server.
        session = editor.driver.get_cookie("deeplinks_console")["value"]
        editor.submit("header form button")
        editor.wait.until(EC.presence_of_element_located((By.ID, "email")))
        answer = status_of(base + "/console/links", {"Cookie": f"deeplinks_console={session}"})
        check(answer == 303, f"after sign-out the old session cookie opens nothing ({answer})")
    finally:
        for console in consoles:
            console.quit()
        log = server.stop()
    server.finish(log)
    print(f"screenshots in {shots}")


if __name__ == "__main__":
    main(sys.argv[1])
