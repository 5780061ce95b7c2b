"""What the browser tests share: the skip rule, a free port, JSON calls, the server under test."""
import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

# The configurations the server runs on: the demo app's, and one that is not (other scheme, domains, route names).
DEMO_CONFIG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Examples", "demo-app.json")
OTHER_CONFIG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Support", "other-app", "app.json")


def skip_or_fail(reason):
    if os.environ.get("CI"):
        print(f"browser test: {reason}, but CI must run it", file=sys.stderr)
        sys.exit(1)
    print(f"◇ browser test skipped: {reason} (bash .ci/run installs them)")
    sys.exit(0)


try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:
    skip_or_fail("the selenium module is not installed")

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
if not CHROMIUM or not DRIVER:
    skip_or_fail("Debian's chromium and chromium-driver are not installed")

failures = []


def page_text(driver, selector="body"):
    """The text of the first element matching `selector` in the document shown now ("" if none).

    Read by script, so no element reference outlives a form post: while the new page replaces the old one,
    Chromium answers a read of an old element with "Node with given id does not belong to the document", a
    generic error that a wait's ignored stale-element exception does not cover. A read during the swap is "".
    """
    try:
        return driver.execute_script(
            "const e = document.querySelector(arguments[0]); return e ? e.innerText : ''", selector
        )
    except WebDriverException:
        return ""


def wait_text(driver, selector, text, present=True, timeout=10):
    """Waits until the element matching `selector` holds `text` (or, with present=False, no longer does)."""
    WebDriverWait(driver, timeout).until(
        lambda d: (text in page_text(d, selector)) == present,
        f"{selector} {'never held' if present else 'still holds'} {text!r}",
    )


def check(condition, message):
    print(("✔ " if condition else "✘ ") + message)
    if not condition:
        failures.append(message)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(base, method, path, body=None, bearer=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method)
    if body is not None:
        request.add_header("Content-Type", "application/json")
    if bearer:
        request.add_header("Authorization", "Bearer " + bearer)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read()
            return response.status, json.loads(text) if text else {}
    except urllib.error.HTTPError as error:
        text = error.read()
        return error.code, json.loads(text) if text else {}


class Server:
    """The built `deeplinks serve` on a free loopback port, its database and mail in a temporary folder."""

    def __init__(self, binary, environment=None, config=None):
        self.work = tempfile.mkdtemp(prefix="deeplinks-browser-")
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.mail = os.path.join(self.work, "mail")
        self.database = os.path.join(self.work, "db.sqlite")
        env = dict(os.environ, DEEPLINKS_SECRET_KEYS="1:" + base64.b64encode(os.urandom(32)).decode(), **(environment or {}))
        self.log_path = os.path.join(self.work, "server.log")
        self.process = subprocess.Popen(
            [binary, "serve", "--config", config or DEMO_CONFIG, "--port", str(self.port), "--database-url", f"sqlite:{self.database}", "--mail-url", self.mail],
            stdout=open(self.log_path, "w"), stderr=subprocess.STDOUT, env=env,
        )
        for _ in range(200):
            try:
                urllib.request.urlopen(self.base + "/healthz", timeout=1)
                return
            except OSError:
                time.sleep(0.1)
        raise SystemExit("the server did not start:\n" + open(self.log_path).read())

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=20)
        return open(self.log_path).read()

    def finish(self, log):
        """Exits non-zero, with the server's log, when a check failed."""
        if failures:
            print(f"server log:\n{log}", file=sys.stderr)
            shutil.rmtree(self.work, ignore_errors=True)
            sys.exit(1)
        shutil.rmtree(self.work, ignore_errors=True)


def axe_violations(driver, minimum=("serious", "critical")):
    """axe-core's violations of the page in `driver` at `minimum` impact, as 'rule: description' lines."""
    try:
        import axe_playwright_python
    except ImportError:
        skip_or_fail("axe-playwright-python (its copy of axe-core) is not installed")
    source = open(os.path.join(os.path.dirname(axe_playwright_python.__file__), "axe.min.js")).read()
    result = driver.execute_async_script(
        source + "\n;var done = arguments[arguments.length - 1]; axe.run(document).then(done, function (e) { done({error: String(e)}); });"
    )
    if "error" in result:
        raise SystemExit(f"axe-core failed: {result['error']}")
    return [f"{v['id']}: {v['help']}" for v in result["violations"] if v.get("impact") in minimum]


def spam_score(path):
    """SpamAssassin's score of a message with its local rules only (no network, no Bayes)."""
    import subprocess
    if not shutil.which("spamassassin"):
        skip_or_fail("spamassassin is not installed")
    report = subprocess.run(["spamassassin", "-L", "-t"], stdin=open(path, "rb"), capture_output=True, timeout=120).stdout.decode()
    import re
    match = re.search(r"Content analysis details:\s+\((-?[0-9.]+) points", report)
    if not match:
        raise SystemExit("spamassassin printed no score:\n" + report[-2000:])
    rules = re.findall(r"^\s*(-?[0-9.]+)\s+([A-Z0-9_]+)\s", report, re.M)
    return float(match.group(1)), rules


def chromium(javascript=True):
    options = webdriver.ChromeOptions()
    if not javascript:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    options.binary_location = CHROMIUM
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1000,1400"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    return webdriver.Chrome(service=Service(DRIVER), options=options)

