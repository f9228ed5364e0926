"""Write coresc/model/known_corpora.json: the paper ids and content hashes of the corpora
whose licence a model card names (ART, CRA, CSAbstruct).

    python experiments/known_corpora.py [--data DIR] [--check]

A model's card recognises its training papers by these (never by the folder they were
read from): a paper whose content hash (the first 16 hex digits of
``coresc.model.provenance.paper_fingerprint``) or, for ART and CRA, whose id is listed
belongs to that corpus. Ids and hashes only, no text. CSAbstruct's ids (``train:12``)
name nothing, so only its hashes are listed. ``--check`` compares the file with the
corpora as this coresc reads them (exit 1 when they differ: a reader changed the text).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from coresc.config import data_dir
from coresc.model.provenance import HASH_DIGITS, KNOWN_CORPORA_FILE, paper_fingerprint
from coresc.readers import read_corpus

#: Corpus key (as coresc.model.card names it) -> (folder under the data, list its ids).
CORPORA = {"art": ("art-corpus", True), "cra": ("cra-corpus", True),
           "csabstruct": ("csabstruct", False)}


def known_corpora(data: Path) -> dict:
    corpora = {}
    for key, (folder, with_ids) in CORPORA.items():
        papers = read_corpus([data / folder])
        corpora[key] = {
            "papers": len(papers),
            "ids": sorted({p.id for p in papers}) if with_ids else [],
            "sha256": sorted({paper_fingerprint(p)[:HASH_DIGITS] for p in papers})}
    return {"about": "paper ids and content hashes (first 16 hex digits of "
                     "coresc.model.provenance.paper_fingerprint) of the corpora a model "
                     "card recognises; written by experiments/known_corpora.py",
            "corpora": corpora}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=None, help="shared data folder")
    ap.add_argument("--check", action="store_true", help="compare, do not write")
    args = ap.parse_args(argv)
    record = known_corpora(args.data or data_dir())
    text = json.dumps(record, indent=1) + "\n"
    if args.check:
        same = KNOWN_CORPORA_FILE.read_text(encoding="utf-8") == text
        print(f"{KNOWN_CORPORA_FILE}: {'up to date' if same else 'differs from the corpora'}")
        return 0 if same else 1
    KNOWN_CORPORA_FILE.write_text(text, encoding="utf-8")
    for key, c in record["corpora"].items():
        print(f"{key}: {c['papers']} papers, {len(c['ids'])} ids, {len(c['sha256'])} hashes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
