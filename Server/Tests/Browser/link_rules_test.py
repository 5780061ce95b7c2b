#!/usr/bin/env python3
"""The console's rule editor in a real headless Chromium, against the built `deeplinks serve` on SQLite.

An editor makes a link, adds rules (each button posts the form, which comes back changed and unsaved: no script),
moves the second above the first, adds and removes a third, saves a rule that cannot be read (refused beside the
rule, nothing written), then saves the link: its page lists the rules and where each platform goes, and the short
link sends an iPhone and a German-speaking desktop where the rules say. Every page: no console error or CSP
violation, no serious or critical axe-core finding. Screenshots go to $DEEPLINKS_ARTIFACTS/link-rules.

Usage: link_rules_test.py PATH_TO_DEEPLINKS_BINARY
"""
import os
import sys
import urllib.error
import urllib.request

from console_test import Console, NoRedirect, add_operator
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.support.ui import Select
from support import EC, By, Server, check

IPHONE = ("Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
          "Version/26.0 Mobile/15E148 Safari/604.1")
DESKTOP = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0"


def location(url, headers):
    """Where a GET of `url` is sent (its redirect not followed)."""
    try:
        answer = urllib.request.build_opener(NoRedirect).open(urllib.request.Request(url, headers=headers), timeout=10)
        return f"{answer.status} (no redirect)"
    except urllib.error.HTTPError as error:
        return error.headers.get("Location") if error.code == 302 else f"{error.code}"


def post(console, by, selector):
    """Clicks a button that posts the form, then waits for the page the post answers (the old one gone). While the
    page is being replaced, Chromium may answer for the old node "Node with given id does not belong to the
    document" rather than a stale reference: gone all the same."""
    page = console.driver.find_element(By.TAG_NAME, "html")
    console.driver.find_element(by, selector).click()

    def gone(_):
        try:
            page.is_enabled()
            return False
        except (StaleElementReferenceException, WebDriverException):
            return True

    console.wait.until(gone)


def main(binary):
    server = Server(binary)
    base = server.base
    shots = os.path.join(os.environ.get("DEEPLINKS_ARTIFACTS", server.work), "link-rules")
    os.makedirs(shots, exist_ok=True)
    add_operator(binary, server, "editor@example.com", "editor")
    editor = Console(server, shots)
    try:
        editor.sign_in("editor@example.com")
        editor.wait.until(EC.presence_of_element_located((By.ID, "links")))
        editor.open("/console/new")
        editor.fill("code", "rules-demo")
        editor.fill("route", "/post/7")
        editor.fill("destinations-fallback", "https://links.example.com/sale")

        # Two rules, added with the form's button: what was typed comes back with each post. A new rule shows its
        # name, platforms and destination only; a condition is added by choosing it (a post, no script).
        post(editor, By.ID, "add-rule")
        check(editor.driver.find_element(By.ID, "code").get_attribute("value") == "rules-demo", "adding a rule keeps the fields")
        check(editor.driver.find_elements(By.ID, "rule-0-languages") == [] and editor.driver.find_elements(By.ID, "rule-0-osMin") == [],
              "a new rule shows no condition's fields")
        editor.fill("rule-0-name", "german")
        Select(editor.driver.find_element(By.ID, "rule-0-condition")).select_by_value("languages")
        post(editor, By.ID, "rule-0-add-condition")
        check(editor.driver.find_element(By.ID, "rule-0-name").get_attribute("value") == "german", "adding a condition keeps the fields")
        check(editor.driver.find_elements(By.ID, "rule-0-osMin") == [], "only the condition chosen is shown")
        options = [o.get_attribute("value") for o in editor.driver.find_elements(By.CSS_SELECTOR, "#rule-0-condition option")]
        check("languages" not in options and "os" in options, f"the conditions left to add: {options}")
        editor.fill("rule-0-languages", "de")
        editor.fill("rule-0-then", "https://links.example.com/de")
        post(editor, By.ID, "add-rule")
        editor.fill("rule-1-name", "iphones")
        editor.driver.find_element(By.ID, "rule-1-platform-iphone").click()
        editor.fill("rule-1-then", "store")
        editor.shoot("two-rules")

        # Order: the second moves above the first.
        post(editor, By.CSS_SELECTOR, "button[aria-label='Move rule 2 up']")
        check(editor.driver.find_element(By.ID, "rule-0-name").get_attribute("value") == "iphones", "moved up")
        check(editor.driver.find_element(By.ID, "rule-1-name").get_attribute("value") == "german", "moved: iphones first, german second")
        reach = editor.driver.find_element(By.ID, "reach").text
        check("iphone rule 1 'iphones': 302 to https://apps.apple.com/app/id1234567890" in reach, f"the form shows where an iPhone goes ({reach})")

        # A third, then removed.
        post(editor, By.ID, "add-rule")
        check(editor.driver.find_elements(By.ID, "rule-2-name") != [], "a third rule added")
        post(editor, By.CSS_SELECTOR, "button[aria-label='Remove rule 3']")
        check(editor.driver.find_elements(By.ID, "rule-2-name") == [], "the third rule removed")
        check(len(editor.driver.find_elements(By.CSS_SELECTOR, "fieldset.rule")) == 2, "removed: two rules left")

        # A rule that cannot be read is refused beside it, and nothing is written.
        editor.fill("rule-1-then", "somewhere nice")
        post(editor, By.ID, "save")
        check(editor.driver.find_elements(By.ID, "rule-1-error") != [], "the refused form shows the rule's error")
        check("sends to:" in editor.driver.find_element(By.ID, "rule-1-error").text, "the unreadable rule is named")
        editor.shoot("rule-refused")
        check(location(base + "/rules-demo", {"User-Agent": DESKTOP}) == "404", "nothing was saved")

        editor.fill("rule-1-then", "https://links.example.com/de")
        post(editor, By.ID, "save")
        editor.wait.until(EC.presence_of_element_located((By.ID, "details")))
        check(editor.driver.current_url.endswith("/console/links/rules-demo"), "saved: the link's page")
        rules = editor.driver.find_element(By.ID, "rules").text
        check("iphones" in rules and "german" in rules and "languages de" in rules, f"the page lists the rules ({rules})")
        reach = editor.driver.find_element(By.ID, "reach").text
        check("desktop no rule: 302 to https://links.example.com/sale" in reach, f"where a desktop goes ({reach})")
        editor.shoot("link-page-rules")

        check(location(base + "/rules-demo", {"User-Agent": IPHONE}) == "https://apps.apple.com/app/id1234567890",
              "an iPhone goes to the App Store (rule 1)")
        check(location(base + "/rules-demo", {"User-Agent": DESKTOP, "Accept-Language": "de-CH, de;q=0.9, en;q=0.5"})
              == "https://links.example.com/de", "a German-speaking desktop goes to the German page (rule 2)")

        # Editing again shows the rules as saved.
        editor.driver.find_element(By.ID, "edit").click()
        editor.wait.until(EC.presence_of_element_located((By.ID, "rule-1-then")))
        check(editor.driver.find_element(By.ID, "rule-0-name").get_attribute("value") == "iphones", "the edit form holds the rules in order")
        check(editor.driver.find_element(By.ID, "rule-0-platform-iphone").is_selected()
              and not editor.driver.find_element(By.ID, "rule-0-platform-ipad").is_selected(), "and the platforms ticked")
        editor.shoot("edit-rules")

        # A rule on a parameter Link Tracking Protection removes: saved, with a warning on the link's page.
        post(editor, By.ID, "add-rule")
        editor.fill("rule-2-name", "from ads")
        Select(editor.driver.find_element(By.ID, "rule-2-condition")).select_by_value("query")
        post(editor, By.ID, "rule-2-add-condition")
        editor.fill("rule-2-query", "gclid")
        editor.fill("rule-2-then", "https://links.example.com/ads")
        post(editor, By.ID, "save")
        editor.wait.until(EC.presence_of_element_located((By.ID, "warnings")))
        warnings = editor.driver.find_element(By.ID, "warnings").text
        check("matches on 'gclid', which Link Tracking Protection removes" in warnings, f"the page warns about gclid ({warnings})")
        editor.shoot("link-page-warning")
    finally:
        editor.quit()
        log = server.stop()
    server.finish(log)
    print(f"screenshots in {shots}")


if __name__ == "__main__":
    main(sys.argv[1])
