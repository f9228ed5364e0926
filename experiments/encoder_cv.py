"""CRF with and without a fine-tuned sentence encoder, on the same folds (gold labels).

For every fold: the CRF-only model, the CRF + encoder model (its CRF trained on
out-of-fold encoder probabilities), and the encoder alone (the argmax of its
probabilities); accuracy and macro-F1 of the primary label per fold, the per-fold delta
and the pooled figures. Setups:

* ``cra3``      CRA, 3 folds by paper (as ``experiments/cv.py cra3``);
* ``art9``      ART, the release folders ann1..ann9;
* ``art2cra``   train on all of ART, test on CRA;
* ``cra3+art``  as cra3, with all of ART added to every fold's training papers (the
  bundled model's two corpora: does ART help CRA through the encoder too?);
* ``csabstruct`` CSAbstruct train -> dev (its own five labels; abstracts only).

Two protocols (``--protocol``): ``nested`` (each fold fine-tunes two inner encoders on
its training papers, for the CRF's out-of-fold features, and a final one for its test
papers: 3k fine-tunings) and ``crossfit`` (one encoder per fold, trained on the other
folds, serves as every paper's probability source: k fine-tunings; for ``art2cra``, ART's
CRF trains on art9's cross-fitted probabilities and CRA is read by one encoder trained on
all of ART). No protocol lets a test paper's labels train the encoder that reads it or
the CRF that labels it.

Fine-tuned encoders and their predictions are cached (``CORESC_CACHE_DIR``), so a rerun,
or a CRF-side change, fine-tunes nothing again. ``--folds 0,2`` runs only some folds
(two processes can share a machine's cores this way); ``--merge`` pools such runs.
Results carry the held-out ECE of the primary score; ``--predictions`` keeps the
held-out sentence records (for ``benchmarks/calibration.py`` and the model card).

    nice -n 10 python experiments/encoder_cv.py cra3 --layers 6 --train-layers 2 \\
        --json runs/enc-cra3.json
    nice -n 10 python experiments/encoder_cv.py art9 --protocol crossfit --context window \\
        --epochs 1 --folds 0,1,2,3,4 --json runs/art9-a.jsonl --predictions runs/art9-a.pred
    python experiments/encoder_cv.py art9 --merge runs/art9-a.jsonl runs/art9-b.jsonl \\
        --predictions-in runs/art9-a.pred runs/art9-b.pred
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cv import SPLITS, load  # noqa: E402

from coresc.config import data_dir  # noqa: E402
from coresc.document import Prediction  # noqa: E402
from coresc.evaluation import evaluate_papers  # noqa: E402
from coresc.model import CoreSCClassifier, balanced_folds, log  # noqa: E402
from coresc.model.encoder import EncoderSettings  # noqa: E402
from coresc.readers import read_corpus  # noqa: E402
from coresc.reliability import calibration_summary  # noqa: E402

#: The corpus of each setup's test papers (as the experiment configs name them).
SETUP_CORPUS = {"cra3": "cra", "art9": "art", "art9p": "art", "art2cra": "cra",
                "cra3+art": "cra", "csabstruct": "csabstruct"}

#: Setups that add a whole other corpus to every fold's training papers:
#: setup -> (the k-fold setup, the corpus added).
ALSO_TRAIN = {"cra3+art": ("cra3", "art")}

#: Encoder settings that have a command-line option.
ENCODER_OPTIONS = ("layers", "train_layers", "epochs", "lr", "head_lr", "batch_size",
                   "max_tokens", "inner_folds", "neighbours", "feature_scale", "seed",
                   "context", "window_tokens", "sentence_tokens", "overlap")


def folds_of(setup: str):
    """(list of (train papers, test papers)) for a setup."""
    if setup in SPLITS:
        corpus, split = SPLITS[setup]
        papers = load(corpus)
        folds = split(papers)
        k = max(folds) + 1
        return [([p for p, f in zip(papers, folds, strict=True) if f != i],
                 [p for p, f in zip(papers, folds, strict=True) if f == i]) for i in range(k)]
    if setup in ALSO_TRAIN:
        kfold, extra = ALSO_TRAIN[setup]
        added = load(extra)
        return [([*train, *added], test) for train, test in folds_of(kfold)]
    if setup == "art2cra":
        return [(load("art"), load("cra"))]
    if setup == "csabstruct":
        root = data_dir() / "csabstruct"
        train = read_corpus([root / "train.jsonl"])
        dev = read_corpus([root / "dev.jsonl"])
        return [(train, dev)]
    raise SystemExit(f"unknown setup {setup!r} (cra3, art9, art9p, art2cra, cra3+art, "
                     "csabstruct)")


def score(papers, keep: list | None = None) -> dict:
    """Accuracy and macro-F1 of the primary label; ECE of its score (held-out papers).

    ``keep``: a list the sentence records are appended to (for the pooled ECE)."""
    r = evaluate_papers(papers)
    out = {"accuracy": round(r["primary"]["accuracy"], 4),
           "macro_f1": round(r["primary"]["macro_f1"], 4), "n": r["n_sentences"]}
    records = [{"gold": s.gold_codes, "pred": [{"label": p.label, "score": p.score}
                                               for p in s.pred]}
               for paper in papers for s in paper.sentences()]
    if keep is not None:
        keep.extend(records)
    return {**out, **_ece(records)}


def _append_records(path: Path, setup: str, fold: int, papers) -> None:
    with open(path, "a", encoding="utf-8") as fh:
        for paper in papers:
            for sec in paper.sections:
                for s in sec.sentences():
                    fh.write(json.dumps({
                        "setup": setup, "fold": fold, "corpus": SETUP_CORPUS.get(setup),
                        "paper": paper.id, "sid": s.sid, "section": sec.heading,
                        "section_type": sec.type, "zone": s.zone, "text": s.text,
                        "gold": s.gold_codes,
                        "pred": [{"label": p.label, "score": round(p.score, 4)}
                                 for p in s.pred]}) + "\n")


def _ece(records: list) -> dict:
    summary = calibration_summary(records)
    return {} if summary is None else {"ece": round(summary["primary"]["ece"], 4)}


def encoder_alone(model: CoreSCClassifier, papers) -> dict:
    """Accuracy of the encoder's own argmax label (copies the papers' gold)."""
    labels = model._encoder.labels
    for p in papers:
        probs = model._encoder_probs(p)
        for s, row in zip(p.sentences(), probs, strict=True):
            s.pred = [Prediction(labels[int(np.argmax(row))], float(np.max(row)))]
    return score(papers)


def baseline(setup: str, fold: int, params: dict, train, test, store: Path | None) -> dict:
    """The CRF-only score of a fold, kept in ``store`` (JSON) across runs and variants."""
    key = json.dumps({"setup": setup, "fold": fold,
                      **{k: v for k, v in params.items() if k not in ("verbose", "device")}},
                     sort_keys=True)
    known = json.loads(store.read_text()) if store and store.is_file() else {}
    if key not in known:
        t = time.monotonic()
        model = CoreSCClassifier(**params).fit(train)
        model.annotate(test)
        known[key] = {**score(test), "seconds": round(time.monotonic() - t, 1)}
        if store:
            store.write_text(json.dumps(known, indent=1))
    return known[key]


def run(setup: str, params: dict, encoder: dict, only: set[int] | None,
        store: Path | None, rows_file: Path | None = None, fit=None,
        predictions: Path | None = None) -> dict:
    """The nested protocol: each fold's encoder and its inner encoders are trained on
    that fold's training papers alone (``fit`` may change how the model is fitted).

    ``predictions``: a JSON-lines file the CRF + encoder's held-out sentence records are
    appended to (the experiment runner's ``predictions.jsonl`` fields, plus ``setup``)."""
    protocol = "nested" if fit is None else "crossfit"
    fit = fit or (lambda model, train: model.fit(train))
    rows = []
    held_out: list = []
    t0 = time.monotonic()
    for i, (train, test) in enumerate(folds_of(setup)):
        if only is not None and i not in only:
            continue
        row: dict = {"fold": i, "test_papers": len(test)}
        row["crf"] = baseline(setup, i, params, train, test, store)
        t = time.monotonic()
        model = fit(CoreSCClassifier(**params, encoder=encoder), train)
        model.annotate(test)
        row["crf+enc"] = {**score(test, held_out), "seconds": round(time.monotonic() - t, 1)}
        if predictions:
            _append_records(predictions, setup, i, test)
        row["enc"] = encoder_alone(model, test)
        row["delta_accuracy"] = round(row["crf+enc"]["accuracy"] - row["crf"]["accuracy"], 4)
        row["delta_macro_f1"] = round(row["crf+enc"]["macro_f1"] - row["crf"]["macro_f1"], 4)
        rows.append(row)
        if rows_file:  # each fold as it finishes: a long run is useful before it ends
            with open(rows_file, "a", encoding="utf-8") as fh:
                fh.write(json.dumps({"setup": setup, "encoder": encoder, "row": row}) + "\n")
        log(f"{setup} fold {i}: crf {row['crf']['accuracy']:.4f}  crf+enc "
            f"{row['crf+enc']['accuracy']:.4f}  enc {row['enc']['accuracy']:.4f}  "
            f"({time.monotonic() - t0:.0f}s so far)")
    return {"setup": setup, "folds": rows, "pooled": pool(rows, held_out), "params": params,
            "encoder": encoder, "protocol": protocol,
            "seconds": round(time.monotonic() - t0, 1)}


def pool(rows: list[dict], held_out: list[dict]) -> dict:
    """Pooled accuracy (over sentences), mean macro-F1 of the folds, pooled ECE."""
    pooled = {}
    for name in ("crf", "crf+enc", "enc"):
        n = sum(r[name]["n"] for r in rows)
        pooled[name] = {
            "accuracy": round(sum(r[name]["accuracy"] * r[name]["n"] for r in rows) / n, 4),
            "macro_f1_mean": round(sum(r[name]["macro_f1"] for r in rows) / len(rows), 4)}
    pooled["crf+enc"].update(_ece(held_out))
    return pooled


def merge(results: list[dict], records: list[dict]) -> dict:
    """One result from runs of the same setup and settings over different folds
    (``--folds``), pooled again; ``records``: their ``--predictions`` records."""
    first = results[0]
    same = ("setup", "encoder", "params", "protocol")
    if any(r.get(k) != first.get(k) for r in results for k in same):
        raise SystemExit("--merge: the results differ in setup, settings or protocol")
    rows = sorted((row for r in results for row in r["folds"]), key=lambda row: row["fold"])
    if len({row["fold"] for row in rows}) != len(rows):
        raise SystemExit("--merge: a fold appears twice")
    return {**{k: first[k] for k in same}, "folds": rows, "pooled": pool(rows, records),
            "seconds": round(sum(r["seconds"] for r in results), 1), "merged": len(results)}


def probe(setup: str, encoder: dict, only: set[int] | None, device: str) -> list[dict]:
    """The encoder alone, fine-tuned once on each fold's training papers (no inner
    folds, no CRF): a quick reading of encoder settings."""
    from coresc.features import paper_labels
    from coresc.labels import sort_key
    from coresc.model.finetune.oof import cross_fit

    settings = EncoderSettings.from_dict(encoder)
    rows = []
    for i, (train, test) in enumerate(folds_of(setup)):
        if only is not None and i not in only:
            continue
        t = time.monotonic()
        papers = [*train, *test]
        labels = [paper_labels(p) for p in papers]
        label_set = sorted({lab for seq in labels[:len(train)] for lab in seq if lab},
                           key=sort_key)
        # fold 1 = the test papers: one encoder, trained on fold 0 (the training papers)
        folds = [0] * len(train) + [1] * len(test)
        probs = cross_fit(papers, labels, label_set, settings, folds, device, log,
                          only_folds=(1,))
        for p, rows_p in zip(test, probs[len(train):], strict=True):
            for s, row in zip(p.sentences(), rows_p, strict=True):
                s.pred = [Prediction(label_set[int(np.argmax(row))], 1.0)]
        rows.append({"fold": i, "enc": score(test), "seconds": round(time.monotonic() - t)})
        log(f"probe {setup} fold {i} {json.dumps(encoder)}: {rows[-1]}")
    return rows


class _GivenProbabilities:
    """Stands in for a fitted encoder: the probabilities cross-fitting computed."""

    def __init__(self, probs: dict[str, np.ndarray], labels: list[str]) -> None:
        self.probs, self.labels = probs, labels

    def predict_paper(self, paper) -> np.ndarray:
        return self.probs[paper.id]


def crossfit_run(setup: str, params: dict, encoder: dict, only: set[int] | None,
                 store: Path | None, rows_file: Path | None = None,
                 predictions: Path | None = None) -> dict:
    """Like :func:`run`, but one encoder per outer fold (trained on the other folds)
    serves as every paper's probability source: k fine-tunings instead of 3k."""
    from coresc.features import paper_labels
    from coresc.labels import sort_key
    from coresc.model.finetune.oof import cross_fit

    kfold = "art9" if setup == "art2cra" else ALSO_TRAIN.get(setup, (setup,))[0]
    if kfold not in SPLITS:
        raise SystemExit(f"--protocol crossfit needs a k-fold setup, {', '.join(ALSO_TRAIN)} "
                         f"or art2cra ({', '.join(SPLITS)})")
    # the corpus order, as each fold's training papers are in: the same examples in the
    # same order as the nested protocol's final encoder, so the two share its cache
    corpus, split = SPLITS[kfold]
    papers = load(corpus)
    folds = split(papers)
    if setup in ALSO_TRAIN:
        papers, folds = _with_added(papers, folds, load(ALSO_TRAIN[setup][1]))
    labels = [paper_labels(p) for p in papers]
    label_set = sorted({lab for seq in labels for lab in seq if lab}, key=sort_key)
    settings = EncoderSettings.from_dict(encoder)
    probs = cross_fit(papers, labels, label_set, settings, folds, params["device"], log)
    given = _GivenProbabilities({p.id: pr for p, pr in zip(papers, probs, strict=True)},
                                label_set)
    if setup == "art2cra":
        given.probs.update(_other_corpus(papers, labels, label_set, settings, params))

    return run(setup, params, encoder, only, store, rows_file, fit=given_fit(given),
               predictions=predictions)


def given_fit(given: _GivenProbabilities):
    """``fit(model, train)`` with the encoder's place taken by ``given``: the CRF
    trains on the given (cross-fitted) probabilities, and nothing is fine-tuned."""
    return lambda model, train: model.fit(train, encoder=given)


def _with_added(papers, folds, added):
    """The k-fold corpus and the added one as one cross-fitting: the added papers are
    spread over the same k groups (balanced by sentence count), so encoder f is trained
    on every paper outside group f, of either corpus, and reads group f (test fold f and
    a k-th of the added corpus). Each CRF then trains on out-of-fold probabilities of both
    corpora, and its test papers were never seen by their encoder."""
    k = max(folds) + 1
    _check_disjoint(papers, added, "an added corpus's paper has the id of a paper of the folds")
    return [*papers, *added], [*folds, *balanced_folds([len(p) for p in added], k)]


def _check_disjoint(papers, others, message: str) -> None:
    """SystemExit(message) when two corpora share a paper id (probabilities are by id)."""
    if {p.id for p in papers} & {p.id for p in others}:
        raise SystemExit(message)


def _other_corpus(papers, labels, label_set, settings, params) -> dict[str, np.ndarray]:
    """CRA's probabilities from one encoder fine-tuned on all of ``papers`` (ART): the
    test papers of ``art2cra``, whose CRF trains on ART's cross-fitted probabilities."""
    from coresc.features import paper_labels
    from coresc.model.finetune.oof import cross_fit

    test = load("cra")
    _check_disjoint(papers, test, "art2cra: a CRA paper has the id of an ART paper")
    both = [*papers, *test]
    every = [*labels, *[paper_labels(p) for p in test]]
    folds = [0] * len(papers) + [1] * len(test)
    probs = cross_fit(both, every, label_set, settings, folds, params["device"], log,
                      only_folds=(1,))
    return {p.id: pr for p, pr in zip(test, probs[len(papers):], strict=True)}


def table(result: dict) -> str:
    lines = [f"## {result['setup']}  (encoder {json.dumps(result['encoder'])})",
             "| fold | test papers | CRF acc / F1 | CRF+enc acc / F1 | enc alone acc / F1 | "
             "delta acc | delta F1 |", "|---|---|---|---|---|---|---|"]
    for r in result["folds"]:
        cells = [f"{r[k]['accuracy'] * 100:.2f} / {r[k]['macro_f1']:.3f}"
                 for k in ("crf", "crf+enc", "enc")]
        lines.append(f"| {r['fold']} | {r['test_papers']} | " + " | ".join(cells)
                     + f" | {r['delta_accuracy'] * 100:+.2f} | {r['delta_macro_f1']:+.3f} |")
    p = result["pooled"]
    cells = [f"{p[k]['accuracy'] * 100:.2f} / {p[k]['macro_f1_mean']:.3f}"
             for k in ("crf", "crf+enc", "enc")]
    d_acc = (p["crf+enc"]["accuracy"] - p["crf"]["accuracy"]) * 100
    d_f1 = p["crf+enc"]["macro_f1_mean"] - p["crf"]["macro_f1_mean"]
    lines.append("| pooled (F1: mean of folds) | | " + " | ".join(cells)
                 + f" | {d_acc:+.2f} | {d_f1:+.3f} |")
    if "ece" in p["crf+enc"]:
        lines.append(f"\nCRF+enc held-out ECE (primary score, pooled): {p['crf+enc']['ece']:.3f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("setups", nargs="+")
    defaults = EncoderSettings()
    for name in ENCODER_OPTIONS:
        kind = type(getattr(defaults, name))
        ap.add_argument("--" + name.replace("_", "-"), type=kind,
                        default=getattr(defaults, name))
    ap.add_argument("--quantize", action="store_true")
    ap.add_argument("--c1", type=float, default=0.5)
    ap.add_argument("--c2", type=float, default=5.0)
    ap.add_argument("--decode", default="posterior")
    ap.add_argument("--secondary", action="store_true")
    ap.add_argument("--domains", default="",
                    help="domain feature augmentation of the CRF, e.g. 'corpus' (cra3+art: "
                         "each feature also copied per corpus, so ART's habits need not be "
                         "CRA's)")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--protocol", choices=("nested", "crossfit"), default="nested",
                    help="nested: each fold fine-tunes its own inner encoders (3 per fold); "
                         "crossfit: one encoder per outer fold, trained on the other folds, "
                         "feeds every other fold's CRF (k fine-tunings in all); art2cra: "
                         "ART's CRF on art9's cross-fitted probabilities, CRA read by one "
                         "encoder trained on all of ART; cra3+art: ART's papers spread over "
                         "the 3 groups")
    ap.add_argument("--folds", help="comma-separated fold indices to run (default: all)")
    ap.add_argument("--probe", action="store_true",
                    help="the encoder alone, fine-tuned once per fold (no inner folds, "
                         "no CRF): a quick comparison of encoder settings")
    ap.add_argument("--json", help="append the results to this JSON-lines file")
    ap.add_argument("--rows", help="append each fold's row to this JSON-lines file as soon "
                                   "as the fold is done")
    ap.add_argument("--predictions-in", type=Path, nargs="*", default=[],
                    metavar="PRED.jsonl", help="with --merge: the runs' --predictions files")
    ap.add_argument("--predictions", type=Path,
                    help="append the CRF + encoder's held-out sentence records to this "
                         "JSON-lines file (for benchmarks/calibration.py and the model card)")
    ap.add_argument("--baselines", default="runs/crf-baselines.json",
                    help="where CRF-only fold scores are kept between runs ('' = nowhere)")
    ap.add_argument("--merge", type=Path, nargs="+", metavar="RESULTS.jsonl",
                    help="instead of running: pool the results of runs over different "
                         "--folds (with their --predictions files) into one, "
                         "printed and appended to --json")
    args = ap.parse_args(argv)
    if args.merge:
        return _merge_files(args.merge, args.predictions_in, args.json)
    encoder = {name: getattr(args, name) for name in (*ENCODER_OPTIONS, "quantize")}
    EncoderSettings.from_dict(encoder)
    params = {"c1": args.c1, "c2": args.c2, "decode": args.decode,
              "secondary": args.secondary, "device": args.device, "verbose": True}
    if args.domains:  # only when given, so earlier baselines keep their keys
        params["domains"] = tuple(d for d in args.domains.split(",") if d)
    only = {int(x) for x in args.folds.split(",")} if args.folds else None
    for setup in args.setups:
        if args.probe:
            rows = probe(setup, encoder, only, args.device)
            print(json.dumps({"setup": setup, "encoder": encoder, "probe": rows}), flush=True)
            if args.json:
                with open(args.json, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps({"setup": setup, "encoder": encoder,
                                         "probe": rows}) + "\n")
            continue
        result = (crossfit_run if args.protocol == "crossfit" else run)(
                     setup, params, encoder, only,
                     Path(args.baselines) if args.baselines else None,
                     Path(args.rows) if args.rows else None, predictions=args.predictions)
        print(table(result), flush=True)
        if args.json:
            with open(args.json, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(result) + "\n")
    return 0


def _merge_files(paths: list[Path], predictions: list[Path], out: str | None) -> int:
    def lines(path: Path) -> list[dict]:
        return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()
                if x.strip()]

    result = merge([r for p in paths for r in lines(p)],
                   [r for p in predictions for r in lines(p)])
    print(table(result), flush=True)
    if out:
        with open(out, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
