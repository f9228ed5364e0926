"""Smoke check of `coresc train --from` from a bundled model, with and without the per-label
mixing of issue 38: adapt MODEL to the first 3 papers (by id) of a gold corpus, then print
the time, the adapted labels and weights, and the primary-label counts on the next 2.

Not a score: both bundled models were trained on all 50 CRA papers, so CRA papers are
in-sample for them (docs/benchmarks.md, "Rare labels under adaptation").

    python experiments/adapt_mix_check.py --model accurate
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from coresc.config import data_dir  # noqa: E402
from coresc.model.adapt import adapt  # noqa: E402
from coresc.pipeline import open_model  # noqa: E402
from coresc.readers import read_corpus  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="accurate", help="source: fast, accurate or a path")
    ap.add_argument("--target", default=str(data_dir() / "cra-corpus"))
    args = ap.parse_args(argv)
    papers = sorted(read_corpus([args.target]), key=lambda p: p.id)
    source = open_model(args.model)
    for mix in (True, False):
        t0 = time.monotonic()
        model = adapt(source, papers[:3], source_settings={"mix": mix}, secondary=False,
                      verbose=False)
        took = time.monotonic() - t0
        counts = Counter(r[0].label for p in model.predict(papers[3:5]) for r in p if r)
        weights = {k: round(v, 2) for k, v in model.source_mix_.items()}
        print(f"mix={mix}: adapted in {took:.0f}s; labels {', '.join(model.labels_)}; "
              f"weights {weights}\n  primary labels on 2 more papers: {dict(counts)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
