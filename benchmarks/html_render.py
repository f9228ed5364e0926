"""Page size and render time of the HTML view on the largest ART paper (and the corpus view).

Usage: python benchmarks/html_render.py [--data DIR] [--repeat N] [--browser]

Reads every ART paper (gold labels) to find the one with the most sentences, renders
its page ``--repeat`` times and prints the median time, the page size, and the same
for the corpus view of the whole ART corpus. The largest paper's page is rendered
with its gold labels and then again with invented predictions (each sentence's gold
label at score 0.9 plus a second label), so badges and mismatch marks are in the page
as they are after ``coresc annotate`` on a corpus paper. With ``--browser`` the page
is also opened in headless Chromium (``/usr/bin/chromium``, via selenium) and the time
from navigation start to the load event is printed (median over ``--repeat`` loads).
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
from coresc.document import Prediction
from coresc.labels import LABELS
from coresc.readers import read_corpus
from coresc.writers.html import render_corpus, render_paper


def timed(func, repeat: int) -> tuple[float, str]:
    times, out = [], ""
    for _ in range(repeat):
        start = time.perf_counter()
        out = func()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def browser_load_ms(path: Path, repeat: int) -> float:
    """Median time from navigation start to the load event of ``path`` in headless Chromium."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="coresc-bench-")
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--window-size=1200,1400",
                 f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        times = []
        for _ in range(repeat):
            driver.get("about:blank")
            driver.get(path.resolve().as_uri())
            times.append(driver.execute_script(
                "const t = performance.getEntriesByType('navigation')[0];"
                "return t.loadEventEnd - t.startTime;"))
        return statistics.median(times)
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=None, help="default: coresc data_dir()")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--browser", action="store_true",
                        help="also time loading the page in headless Chromium")
    args = parser.parse_args()
    art = (args.data or data_dir()) / "art-corpus"
    start = time.perf_counter()
    papers = read_corpus([art])
    print(f"[coresc] read {len(papers)} ART papers in {time.perf_counter() - start:.1f}s",
          file=sys.stderr)
    largest = max(papers, key=len)
    n = len(largest)

    t_gold, page = timed(lambda: render_paper(largest), args.repeat)
    size_gold = len(page.encode("utf-8"))

    for i, s in enumerate(largest.sentences()):  # invented predictions (see docstring)
        code = s.gold_codes[0] if s.gold else "Bac"
        other = LABELS[(LABELS.index(code) + 1) % len(LABELS)] if code in LABELS else "Bac"
        first = other if i % 5 == 0 else code  # every 5th sentence a mismatch
        s.pred = [Prediction(first, 0.9), Prediction(code if first != code else other, 0.08)]
    t_pred, page = timed(lambda: render_paper(largest), args.repeat)
    size_pred = len(page.encode("utf-8"))
    load_ms = None
    if args.browser:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "page.html"
            path.write_text(page, encoding="utf-8")
            load_ms = browser_load_ms(path, args.repeat)
    for s in largest.sentences():
        s.pred = []

    t_corpus, summary = timed(lambda: render_corpus(papers), max(1, args.repeat // 3))
    total = sum(len(p) for p in papers)

    print(f"largest ART paper: {largest.id} ({n} sentences, "
          f"{Path(largest.source_path or '').name})")
    print(f"page, gold labels:            {size_gold / 1024:8.1f} KiB  "
          f"render {1000 * t_gold:7.1f} ms  (median of {args.repeat})")
    print(f"page, gold + 2 predictions:   {size_pred / 1024:8.1f} KiB  "
          f"render {1000 * t_pred:7.1f} ms  (median of {args.repeat})")
    if load_ms is not None:
        print(f"page, gold + 2 predictions, headless Chromium navigation to load event: "
              f"{load_ms:.0f} ms (median of {args.repeat})")
    print(f"corpus view, {len(papers)} papers / {total} sentences: "
          f"{len(summary.encode('utf-8')) / 1024:8.1f} KiB  render {1000 * t_corpus:7.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
