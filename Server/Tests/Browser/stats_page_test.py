#!/usr/bin/env python3
"""The click chart of a smart link, in a real headless Chromium, checked on its screenshot.

Runs the built `deeplinks` binary with an admin key, creates a link, adds three earlier days of counts
to its SQLite file and clicks it today with several user agents (a preview fetcher among them), then opens
/v1/links/CODE/stats.html in Chromium (the admin key sent as a header through the DevTools protocol) and
checks: one bar per day; bar heights proportional to the clicks by people; the screenshot of the chart
holds as many bar-blue pixels as the bars cover; the page's CSP blocked nothing.

Usage: stats_page_test.py PATH_TO_DEEPLINKS_BINARY
"""
import os
import sqlite3
import struct
import sys
import time
import urllib.request
import zlib

from support import EC, By, Server, WebDriverWait, call, check, chromium

KEY = "browser-test-admin-key-0123456789abcdef"
AGENTS = {
    "iphone": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Version/17.5 Mobile/15E148 Safari/604.1",
    "desktop": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/126.0 Safari/537.36",
    "bot": "facebookexternalhit/1.1 Facebot Twitterbot/1.0",
}


def png_pixels(data):
    """Width, height and rows of RGB(A) tuples of an 8-bit, non-interlaced PNG (what Chromium writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    position, chunks, header = 8, b"", None
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks += body
        position += 12 + length
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and interlace == 0 and color in (2, 6), header
    channels = 4 if color == 6 else 3
    raw = zlib.decompress(chunks)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = previous[x]
            c = previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, channels)])
        previous = line
    return width, height, rows


def main(binary):
    server = Server(binary, {"DEEPLINKS_ADMIN_KEY": KEY})
    base = server.base
    driver = None
    try:
        status, _ = call(base, "POST", "/v1/links", {"code": "chart", "route": "/post/7"}, bearer=KEY)
        check(status == 201, "link created")
        for platform, count in [("iphone", 3), ("desktop", 2), ("bot", 4)]:
            for _ in range(count):
                request = urllib.request.Request(base + "/chart", headers={"User-Agent": AGENTS[platform]})
                opener = urllib.request.build_opener(NoRedirect)
                opener.open(request, timeout=5).close()
        today = time.strftime("%Y-%m-%d", time.gmtime())
        def day_ago(ago):
            return time.strftime("%Y-%m-%d", time.gmtime(time.time() - ago * 86400))
        # Six days ago, then nothing for two days: time stays linear, the empty days are drawn empty.
        earlier = {day_ago(ago): clicks for ago, clicks in [(6, 6), (3, 10), (2, 4), (1, 8)]}
        with sqlite3.connect(server.database) as database:
            for day, clicks in earlier.items():
                database.execute("INSERT INTO link_clicks (code, day, platform, bot, clicks) VALUES ('chart', ?, 'iphone', 0, ?)", (day, clicks))
        expected = dict(earlier, **{today: 5})
        for _ in range(50):
            if call(base, "GET", "/v1/links/chart/stats", bearer=KEY)[1].get("clicks") == sum(expected.values()):
                break
            time.sleep(0.1)

        driver = chromium()
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"Authorization": f"Bearer {KEY}"}})
        driver.get(base + "/v1/links/chart/stats.html")
        chart = WebDriverWait(driver, 10).until(EC.visibility_of_element_located((By.ID, "chart")))
        bars = driver.find_elements(By.CSS_SELECTOR, "rect.bar")
        # At least the two weeks up to the last click: a day is drawn as a day, with the days before it.
        every_day = [day_ago(ago) for ago in range(13, -1, -1)]
        check([b.get_attribute("data-day") for b in bars] == every_day, f"one bar per day, empty days too, two weeks at least: {[b.get_attribute('data-day') for b in bars]}")
        heights = {b.get_attribute("data-day"): b.rect["height"] for b in bars}
        peak = max(expected.values())
        for when in every_day:
            clicks = expected.get(when, 0)
            check(abs(heights.get(when, -1) - 200 * clicks / peak) <= 1, f"{when}: {clicks} clicks, bar of {heights.get(when)} px")
        check(f"{sum(expected.values())} clicks by people" in driver.page_source, "the total counts people only (4 preview fetches apart)")

        path = os.path.join(server.work, "stats-chart.png")
        chart.screenshot(path)
        width, height, rows = png_pixels(open(path, "rb").read())
        blue = sum(1 for row in rows for (r, g, b) in row if abs(r - 0) < 30 and abs(g - 102) < 30 and abs(b - 204) < 30)
        bar_width = bars[0].rect["width"]
        area = sum(bar_width * 200 * clicks / peak for clicks in expected.values())
        scale = (width / chart.rect["width"]) * (height / chart.rect["height"])
        check(abs(blue - area * scale) <= 0.05 * area * scale, f"the screenshot ({width}x{height}) has {blue} bar pixels for {area * scale:.0f} expected")
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        check(not errors, f"no console error (CSP violations included): {errors}")

        # Ninety days: one bar a week, and the chart fits a phone's width.
        status, _ = call(base, "POST", "/v1/links", {"code": "season", "route": "/post/8"}, bearer=KEY)
        check(status == 201, "a second link")
        with sqlite3.connect(server.database) as database:
            for ago in (90, 45, 0):
                database.execute("INSERT INTO link_clicks (code, day, platform, bot, clicks) VALUES ('season', ?, 'iphone', 0, 3)", (day_ago(ago),))
        driver.set_window_size(390, 900)
        driver.get(base + "/v1/links/season/stats.html")
        WebDriverWait(driver, 10).until(EC.visibility_of_element_located((By.ID, "chart")))
        weeks = driver.find_elements(By.CSS_SELECTOR, "rect.bar")
        check(13 <= len(weeks) <= 15, f"past a month, one bar a week: {len(weeks)} bars")
        check(sum(int(b.get_attribute("data-clicks")) for b in weeks) == 9, "the weeks hold every click")
        overflow = driver.execute_script("return document.documentElement.scrollWidth > window.innerWidth")
        check(not overflow, "390 px: the chart fits")
        # The decisions table with a long destination does not run off the page either.
        long = "https://links.example.com/" + "a" * 300
        status, _ = call(base, "POST", "/v1/links", {"code": "longest", "route": "/post/9", "destinations": {"desktop": long}}, bearer=KEY)
        check(status == 201, "a link with a long destination")
        driver.get(base + "/longest?d=1")
        overflow = driver.execute_script("return document.documentElement.scrollWidth > window.innerWidth")
        check(not overflow, "390 px: the ?d=1 table fits")
    finally:
        if driver:
            driver.quit()
        log = server.stop()
    check(KEY not in log, "the admin key is not in the server's log")
    server.finish(log)
    print("stats page test: all checks passed")


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None

    def http_error_302(self, request, response, code, message, headers):
        return response


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    main(sys.argv[1])
