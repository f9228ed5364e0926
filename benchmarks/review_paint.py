"""First paint of coresc review's page for a 300-sentence paper, in headless Chromium.

Usage: python benchmarks/review_paint.py [PAPER] [--repeat N] [--model MODEL]
       [--screenshot PNG]

Starts ``coresc review PAPER --annotator bench -o TMP --port 0`` (the real server, on
the loopback address; PAPER defaults to ../shared/data/jats/elife05031.xml, 300
sentences), then loads ``/paper/0`` ``--repeat`` times in headless Chromium
(``/usr/bin/chromium`` via selenium) and prints the medians of: the server's answer
(navigation start to the response's last byte), first paint and first contentful paint
(the browser's paint timing), and the time until the review script is ready for keys
(``data-ready``, the DOMContentLoaded event's end), and of the time one decision takes
to be saved (a POST answered once the state and the mode2 file are replaced). With
``--screenshot`` it also corrects a few sentences by keyboard and saves a PNG of the page
(the docs' picture).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from coresc.config import data_dir
from coresc.serve.launch import Server

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1400,900")
TIMES = """
const nav = performance.getEntriesByType('navigation')[0];
const paint = {};
performance.getEntriesByType('paint').forEach((p) => { paint[p.name] = p.startTime; });
return [nav.responseEnd - nav.startTime, paint['first-paint'],
        paint['first-contentful-paint'], nav.domContentLoadedEventEnd - nav.startTime];
"""


def driver(profile: str):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in (*FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def measure(browser, url: str, repeat: int) -> list[list[float]]:
    rows = []
    for _ in range(repeat):
        browser.get("about:blank")
        browser.get(url)
        body = browser.find_element("tag name", "body")
        deadline = time.monotonic() + 30
        while body.get_attribute("data-ready") != "1" and time.monotonic() < deadline:
            time.sleep(0.01)
        rows.append(browser.execute_script(TIMES))
    return rows


def save_ms(url: str, n: int) -> list[float]:
    """Wall time of ``n`` decisions (accept sentence k) sent as the page sends them."""
    import urllib.request

    times = []
    for k in range(n):
        request = urllib.request.Request(
            f"{url}api/papers/0/sentences/{k}", data=b'{"accept": true}', method="POST",
            headers={"Content-Type": "application/json", "X-Coresc-Review": "1"})
        start = time.perf_counter()
        with urllib.request.urlopen(request) as answer:
            answer.read()
        times.append(1000 * (time.perf_counter() - start))
    return times


def screenshot(browser, url: str, png: Path) -> None:
    """A few corrections by keyboard (as in docs/review.md), then the picture."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    browser.get(url)
    time.sleep(0.5)
    chain = ActionChains(browser)
    for key in (Keys.ENTER, Keys.ENTER, Keys.ENTER, "m", Keys.ENTER, Keys.ENTER, Keys.ENTER,
                "r"):
        chain.send_keys(key)
    chain.key_down(Keys.SHIFT).send_keys("C").key_up(Keys.SHIFT).perform()
    body = browser.find_element("tag name", "body")
    deadline = time.monotonic() + 60
    while body.get_attribute("data-pending") != "0" and time.monotonic() < deadline:
        time.sleep(0.05)
    png.parent.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(png))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paper", nargs="?", type=Path,
                        default=data_dir() / "jats" / "elife05031.xml")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--model", default="fast", help="labels the paper first (default "
                                                        "fast: the page does not depend on it)")
    parser.add_argument("--screenshot", type=Path, help="also save a PNG of the page here")
    args = parser.parse_args()
    from coresc.readers import read_file

    n = len(read_file(args.paper)[0])
    out = Path(tempfile.mkdtemp(prefix="coresc-review-bench-"))
    profile = tempfile.mkdtemp(prefix="coresc-bench-")
    try:
        with Server([str(args.paper), "--annotator", "bench", "-o", str(out), "--model",
                     args.model], verb="review") as server:
            browser = driver(profile)
            try:
                rows = measure(browser, server.url + "paper/0", args.repeat)
                if args.screenshot:
                    screenshot(browser, server.url + "paper/0", args.screenshot)
            finally:
                browser.quit()
            saves = save_ms(server.url, args.repeat)
        names = ("server answer (response end)", "first paint", "first contentful paint",
                 "review script ready (DOMContentLoaded end)")
        print(f"paper: {args.paper.name} ({n} sentences), model {args.model}, "
              f"median of {args.repeat} loads in headless Chromium")
        for k, name in enumerate(names):
            values = [r[k] for r in rows if r[k] is not None]
            print(f"  {name:45s} {statistics.median(values):7.0f} ms  "
                  f"(max {max(values):.0f})")
        print(f"  {'one decision saved (POST to answer)':45s} {statistics.median(saves):7.0f} ms"
              f"  (max {max(saves):.0f}; {args.repeat} decisions)")
    finally:
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(profile, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
