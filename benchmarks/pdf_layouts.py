"""Gold papers read back from PDFs rendered through publishing templates
(``experiments/render_layouts.py``): how faithfully each layout is read, and the CoreSC
accuracy through the PDF route beside the XML route, per layout. Labels are **gold**.

For each rendered PDF the paper's XML is read too (the reference, with the captions the
render added). Reading fidelity is ``pdf_fidelity.py``'s measure (recall, precision,
headings). Accuracy: every gold sentence of the XML is looked up among all the PDF's
sentences (similarity >= 0.9, else a PDF sentence that holds it whole, else two or three
consecutive PDF sentences that together are it: the longest of them) and scored with
that sentence's predicted label; a gold sentence the PDF reading lost is scored wrong
(``-``; *lost* is their share). The XML route scores the same model on the XML's own
sentences.

``--cv K``: K folds by paper (``balanced_folds``, as ``experiments/cv.py cra3``); each
fold's model (``fast``'s CRF settings) is trained on the other folds' XML and labels the
held-out papers by both routes. Without it, the bundled ``fast`` model labels them (it
was trained on ART and CRA: in-sample, for the reading figures only).

    python benchmarks/pdf_layouts.py --corpus cra --cv 3 [--root out/layouts]
        [--layouts article-2col,llncs] [--papers N] [--json FILE]
    python benchmarks/pdf_layouts.py --corpus art --release-folds   (ART's 9 folds)
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pdf_fidelity  # noqa: E402

import coresc  # noqa: E402
from coresc.document import Paragraph, Section, Sentence  # noqa: E402
from coresc.errors import InputError  # noqa: E402
from coresc.evaluation import evaluate_papers, score_label_lists  # noqa: E402
from coresc.metrics import NO_PREDICTION  # noqa: E402
from coresc.model import CoreSCClassifier, balanced_folds  # noqa: E402
from coresc.readers import read_file, read_pdf  # noqa: E402


def with_captions(paper, captions: list[str]):
    """A copy of ``paper``'s sections with a section of the render's captions added, so
    that a caption read from the PDF counts as found, not as junk."""
    ref = type(paper)(paper.id, paper.title, paper.source_format, paper.source_path,
                      list(paper.sections), meta=dict(paper.meta))
    sents = [Sentence(f"cap{i}", text) for i, text in enumerate(captions)]
    # (no heading: the headings measure counts only the paper's own)
    ref.sections.append(Section("", "caption", 1, paragraphs=[Paragraph(sentences=sents)]))
    return ref


def pdf_labels(ref, cand) -> list[list[str]]:
    """For each gold sentence of ``ref``, the labels of the PDF sentence that holds it
    (any of the PDF's sentences, the title and short ones too); ``[NO_PREDICTION]`` for
    one the reading lost."""
    c_sents = [(pdf_fidelity.norm(s.text), s) for s in cand.sentences()]
    c_keys = [k for k, _ in c_sents]
    exact = {k: j for j, k in enumerate(c_keys)}
    out = []
    for s in ref.sentences():
        if not s.gold:
            continue
        key = pdf_fidelity.norm(s.text)
        j, sim = pdf_fidelity.best_match(key, c_keys, exact) if key else (-1, 0)
        if sim < pdf_fidelity.SIMILAR:
            j = next((i for i, c in enumerate(c_keys) if key and key in c), -1)
        if j < 0 and key:
            j = _split_into(key, c_keys)
        out.append(c_sents[j][1].pred_codes or [NO_PREDICTION] if j >= 0 else [NO_PREDICTION])
    return out


def _split_into(key: str, keys: list[str]) -> int:
    """Where the PDF's splitter cut one gold sentence in two or three ("... was limited.1
    Increased risk ..."): the longest of the consecutive PDF sentences that together
    are the gold sentence, or -1."""
    for j, first in enumerate(keys):
        if not first or not key.startswith(first[:12]):
            continue
        for n in (2, 3):
            joined = "".join(keys[j:j + n])
            if len(joined) >= 0.9 * len(key) and \
                    pdf_fidelity.best_match(key, [joined], {})[1] >= pdf_fidelity.SIMILAR:
                return max(range(j, j + n), key=lambda i: len(keys[i]))
    return -1


def _folds(papers: list, k: int, release: bool = False) -> list[int]:
    if release:  # ART's 9 release folders (ann1 .. ann9), as ``experiments/cv.py art9``
        names = sorted({Path(p.source_path).parent.name for p in papers})
        return [names.index(Path(p.source_path).parent.name) for p in papers]
    return balanced_folds([len(p.sentences()) for p in papers], k) if k else [0] * len(papers)


def _models(papers: list, folds: list[int], k: int) -> dict:
    if not k:
        return dict.fromkeys(range(1), coresc.load("fast"))
    out = {}
    for f in range(k):
        train = [p for p, g in zip(papers, folds, strict=True) if g != f]
        t0 = time.monotonic()
        out[f] = CoreSCClassifier(c1=0.5, c2=5.0).fit(train)
        print(f"fold {f + 1}/{k}: trained on {len(train)} papers in "
              f"{time.monotonic() - t0:.0f} s", flush=True)
    return out


def _label(model, paper) -> None:
    if hasattr(model, "annotate"):
        model.annotate([paper])
    else:
        model(paper)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, default=Path("out/layouts"))
    ap.add_argument("--corpus", default="cra")
    ap.add_argument("--layouts", default=None, help="comma-separated; default: all found")
    ap.add_argument("--papers", type=int, default=None)
    ap.add_argument("--cv", type=int, default=0, help="folds by paper (0: bundled fast)")
    ap.add_argument("--release-folds", action="store_true",
                    help="folds = the corpus's release folders (ART: ann1..ann9)")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    root = args.root / args.corpus
    layouts = args.layouts.split(",") if args.layouts else sorted(
        p.name for p in root.iterdir() if p.is_dir() and any(p.glob("*.pdf")))
    missing = [name for name in layouts if not any((root / name).glob("*.truth.json"))]
    if missing:
        ap.error(f"no rendered papers under {root} for: {', '.join(missing)} "
                 "(experiments/render_layouts.py makes them)")
    truths = {}
    for layout in layouts:
        for t in sorted((root / layout).glob("*.truth.json")):
            truths.setdefault(t.name[:-len(".truth.json")], {})[layout] = json.loads(
                t.read_text())
    ids = sorted(truths)[:args.papers] if args.papers else sorted(truths)
    papers = [read_file(next(iter(truths[i].values()))["source"])[0] for i in ids]
    folds = _folds(papers, args.cv, args.release_folds)
    models = _models(papers, folds, max(folds) + 1 if args.release_folds else args.cv)
    rows = {name: [] for name in layouts}
    gold: dict[str, list] = {}
    preds: dict[str, dict] = {name: {} for name in layouts}
    for paper, fold in zip(papers, folds, strict=True):
        model = models[fold]
        _label(model, paper)
        gold[paper.id] = [s.gold_codes for s in paper.sentences() if s.gold]
        for layout in layouts:
            truth = truths[paper.id].get(layout)
            if truth is None:
                continue
            pdf = root / layout / f"{paper.id}.pdf"
            try:
                cand = read_pdf(pdf.read_bytes(), pdf)
            except InputError as exc:
                print(f"  {layout} {paper.id}: not read: {exc}")
                preds[layout][paper.id] = [[NO_PREDICTION]] * len(gold[paper.id])
                rows[layout].append(dict.fromkeys(("recall", "precision", "headings"), 0.0))
                continue
            _label(model, cand)
            rows[layout].append(pdf_fidelity.score(with_captions(paper, truth["captions"]),
                                                   cand))
            preds[layout][paper.id] = pdf_labels(paper, cand)
        print(f"  {paper.id} read in {len(layouts)} layouts", flush=True)
    xml = evaluate_papers(papers)["primary"]
    report = {"xml": _summary(xml), "layouts": {}}
    print(f"\n{'route':22} {'papers':>6} {'recall':>6} {'prec':>6} {'heads':>6} "
          f"{'acc':>6} {'macroF1':>7} {'d acc':>6} {'lost':>6}")
    print(f"{'XML':22} {len(papers):6} {'':6} {'':6} {'':6} {100 * xml['accuracy']:6.2f} "
          f"{100 * xml['macro_f1']:7.2f}")
    for layout in layouts:
        got = {k: v for k, v in preds[layout].items()}
        scores = score_label_lists({k: gold[k] for k in got}, got)["primary"]
        fid = {m: statistics.mean(r[m] for r in rows[layout]) for m in
               ("recall", "precision", "headings")} if rows[layout] else {}
        lost = sum(1 for labels in got.values() for x in labels if x == [NO_PREDICTION])
        fid["lost"] = lost / max(sum(len(x) for x in got.values()), 1)
        report["layouts"][layout] = {**_summary(scores), **fid, "papers": len(got)}
        print(f"{layout:22} {len(got):6} {fid.get('recall', 0):6.3f} "
              f"{fid.get('precision', 0):6.3f} {fid.get('headings', 0):6.3f} "
              f"{100 * scores['accuracy']:6.2f} {100 * scores['macro_f1']:7.2f} "
              f"{100 * (scores['accuracy'] - xml['accuracy']):+6.2f} {100 * fid['lost']:6.2f}")
    _per_label(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


def _summary(primary: dict) -> dict:
    return {"accuracy": primary["accuracy"], "macro_f1": primary["macro_f1"],
            "f1": {k: v["f1"] for k, v in primary["per_label"].items()}}


def _per_label(report: dict) -> None:
    labels = sorted(report["xml"]["f1"])
    print("\nF1 per label (x100)\n" + f"{'route':22} " + " ".join(f"{x:>5}" for x in labels))
    for name, row in [("XML", report["xml"]), *report["layouts"].items()]:
        print(f"{name:22} " + " ".join(f"{100 * row['f1'].get(x, 0):5.1f}" for x in labels))


if __name__ == "__main__":
    sys.exit(main())
