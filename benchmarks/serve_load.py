"""Load test of ``coresc serve`` on the loopback address; bounded, it stops by itself.

1. Baseline: ``coresc annotate --jobs 2`` on COPIES copies of one paper (wall clock,
   start-up included): papers per second.
2. ``coresc serve --workers 2`` (fast model unless --model): requests per second and
   p50/p95 latency with 1, 4 and 16 concurrent clients, each client one keep-alive
   connection sending the paper (raw body, JSON answer) again and again.
3. Memory: the server and its workers' resident memory (RSS, summed over the process
   tree) after 100 and after 1,000 requests (4 clients), and the peak seen.

    python benchmarks/serve_load.py                       # the 254-sentence JATS paper
    python benchmarks/serve_load.py --paper X.nxml --copies 40 --memory-requests 300
"""

from __future__ import annotations

import argparse
import http.client
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import psutil

from coresc.config import data_dir
from coresc.readers import read_file
from coresc.serve.launch import Server

PAPER = data_dir() / "jats" / "1471-2180-11-174.nxml"


def cli_throughput(paper: Path, copies: int, model: str) -> float:
    """Papers per second of ``coresc annotate --jobs 2`` on ``copies`` copies of ``paper``."""
    with tempfile.TemporaryDirectory(prefix="coresc-serve-load-") as tmp:
        src = Path(tmp) / "in"
        src.mkdir()
        for i in range(copies):
            shutil.copy(paper, src / f"p{i:04d}{paper.suffix}")
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "coresc", "annotate", str(src), "-o",
                        str(Path(tmp) / "out"), "--jobs", "2", "--model", model, "-q"],
                       check=True)
        return copies / (time.perf_counter() - t0)


class Client(threading.Thread):
    """One keep-alive connection sending the paper ``n`` times; keeps each latency."""

    def __init__(self, url: str, body: bytes, n: int) -> None:
        super().__init__(daemon=True)
        self.url, self.body, self.n = urlsplit(url), body, n
        self.latencies: list[float] = []
        self.errors: list[int] = []

    def run(self) -> None:
        conn = http.client.HTTPConnection(self.url.hostname, self.url.port, timeout=300)
        headers = {"Content-Type": "application/xml"}
        for _ in range(self.n):
            t0 = time.perf_counter()
            conn.request("POST", "/annotate?filename=paper.nxml", self.body, headers)
            resp = conn.getresponse()
            resp.read()
            self.latencies.append(time.perf_counter() - t0)
            if resp.status != 200:
                self.errors.append(resp.status)
        conn.close()


def load(url: str, body: bytes, clients: int, total: int) -> dict:
    workers = [Client(url, body, total // clients) for _ in range(clients)]
    t0 = time.perf_counter()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    seconds = time.perf_counter() - t0
    lat = sorted(x for w in workers for x in w.latencies)
    return {"clients": clients, "requests": len(lat), "req_s": len(lat) / seconds,
            "p50": statistics.median(lat), "p95": lat[max(int(0.95 * len(lat)) - 1, 0)],
            "errors": sum(len(w.errors) for w in workers)}


def tree_rss(pid: int) -> int:
    proc = psutil.Process(pid)
    total = proc.memory_info().rss
    for child in proc.children(recursive=True):
        try:
            total += child.memory_info().rss
        except psutil.NoSuchProcess:
            pass
    return total


def memory(url: str, body: bytes, pid: int, total: int, clients: int = 4) -> dict:
    """RSS after the first 100 requests and after ``total``, and the peak between."""
    marks: dict = {"peak": 0}
    done = 0
    for step in [100, *[100] * ((total - 100) // 100)]:
        load(url, body, clients, step)
        done += step
        rss = tree_rss(pid)
        marks["peak"] = max(marks["peak"], rss)
        marks.setdefault("after_100", rss)
        marks["after_last"], marks["requests"] = rss, done
    return marks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paper", type=Path, default=PAPER)
    parser.add_argument("--model", default="fast")
    parser.add_argument("--copies", type=int, default=60, help="papers for the CLI baseline")
    parser.add_argument("--requests", type=int, default=64, help="requests per client count")
    parser.add_argument("--memory-requests", type=int, default=1000)
    args = parser.parse_args()
    body = args.paper.read_bytes()
    sentences = sum(len(p) for p in read_file(args.paper))
    print(f"paper: {args.paper} ({sentences} sentences), model {args.model}, "
          f"{psutil.cpu_count()} CPUs")
    cli = cli_throughput(args.paper, args.copies, args.model)
    print(f"coresc annotate --jobs 2, {args.copies} copies: {cli:.2f} papers/s")
    with Server(["--model", args.model, "--workers", "2", "--queue", "64"]) as server:
        url = server.url
        load(url, body, 2, 4)  # warm-up
        results = [load(url, body, c, max(args.requests, c * 4)) for c in (1, 4, 16)]
        for r in results:
            print(f"serve --workers 2, {r['clients']:>2} client(s): {r['req_s']:.2f} req/s "
                  f"({100 * r['req_s'] / cli:.0f}% of the CLI), p50 {r['p50'] * 1000:.0f} ms, "
                  f"p95 {r['p95'] * 1000:.0f} ms, {r['requests']} requests, "
                  f"{r['errors']} errors")
        single = results[0]["p50"]
        print(f"p95 at 4 clients / single-request latency (p50 at 1 client): "
              f"{results[1]['p95'] / single:.2f}x")
        mem = memory(url, body, server.process.pid, args.memory_requests)
        growth = 100 * (mem["after_last"] / mem["after_100"] - 1)
        print(f"memory (server + workers RSS): {mem['after_100'] / 2**20:.0f} MiB after 100 "
              f"requests, {mem['after_last'] / 2**20:.0f} MiB after {mem['requests']} "
              f"({growth:+.1f}%), peak {mem['peak'] / 2**20:.0f} MiB")


if __name__ == "__main__":
    main()
