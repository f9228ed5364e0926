"""Compare two models (or two annotated outputs) on the same gold papers, with a paired test.

A and B are each a model directory, a bundled model ('fast', 'accurate'), or an annotated
output: a file or folder of predictions over the papers of CORPUS (what `coresc annotate`
writes as mode2, TEI or JSONL; TSV and HTML cannot be read back), so runs made elsewhere
can be compared. Gold labels come from CORPUS; every gold sentence must be in both sides.

Prints each side's accuracy and macro-F1 with 95% intervals over papers (a t interval on
the delete-one-paper jackknife), the difference B - A with its interval (each paper left
out of both sides at once) and the two-sided t test's p on the same standard error, so
that the interval excludes 0 exactly when p < 0.05; per label too (p Holm-adjusted over
the labels); one plain sentence; and how many papers would detect a difference of 1, 2
and 5 points, from these papers' spread. Papers either model was trained on are named
and left out, as `coresc evaluate` does; when none is left the comparison is refused. A
second copy of a paper (the same text) is left out too, and named.

examples:
  coresc compare fast accurate held-out-papers/
  coresc compare run1/predictions.jsonl run2/predictions.jsonl gold/ --json diff.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..errors import InputError, UsageError
from .options import OUTPUT_FILE, add_format_argument

#: Ways to read each side, for the messages.
_KINDS = "a model directory, a bundled model name or an annotated output"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("a", metavar="A", help=f"the baseline: {_KINDS}")
    parser.add_argument("b", metavar="B", help=f"the contender: {_KINDS}")
    parser.add_argument("corpora", nargs="+", metavar="CORPUS",
                        help="gold-labelled paper files or directories")
    add_format_argument(parser, "input format of CORPUS (default: auto)")
    parser.add_argument("--json", type=OUTPUT_FILE, metavar="FILE",
                        help="also write the comparison as JSON")


def run(args: argparse.Namespace) -> int:
    from .. import stats
    from ..readers import read_corpus
    from .options import corpus_groups, each_paper_once

    given = read_corpus(args.corpora, args.format)
    papers, repeats = each_paper_once(given, "compare")
    copies = {p.id for p in given} - {p.id for p in papers}  # an output may hold them too
    gold, paper_of = _gold_sentences(papers, args.corpora)
    sides = [_side(spec, name, papers, gold, _names(args.corpora), copies)
             for spec, name in ((args.a, "A"), (args.b, "B"))]
    keep, left_out = _held_out(paper_of, sides, args.corpora)
    left_out += [{"paper": r["paper"], "why": "given twice" if r["paper"] == r["same_as"]
                  else f"the same text as {r['same_as']}"} for r in repeats]
    gold_by = {k: [s.gold_codes for s in gold[k]] for k in keep}
    preds = [{k: side["pred"][k] for k in keep} for side in sides]
    groups = dict(zip(paper_of, corpus_groups(list(paper_of.values()), args.corpora),
                      strict=True))
    corpus = {k: groups[k] for k in keep}
    tables = stats.paper_tables(gold_by, preds, stats.strata_of(keep, corpus))
    try:
        result = stats.paired(*tables)
    except stats.TooFewPapers as exc:
        raise UsageError(f"{_names(args.corpora)}: {exc}; no interval or test can be "
                         "made") from None
    out = _summary(result, sides, left_out)
    sys.stdout.write(render(out))
    if args.json:
        from ..writers import atomic_output

        with atomic_output(args.json) as fh:
            json.dump(out, fh, indent=1)
    return 0


def _names(corpora) -> str:
    return corpora[0] if len(corpora) == 1 else f"{corpora[0]} (and {len(corpora) - 1} more)"


def _key(paper, i: int, seen: dict) -> str:
    return paper.id if paper.id not in seen else f"{paper.id}#{i}"


def _gold_sentences(papers, corpora) -> tuple[dict[str, list], dict[str, Any]]:
    """Paper key -> its gold-labelled sentences, and -> the paper (papers with gold
    only); refuses a corpus without gold."""
    gold: dict[str, list] = {}
    paper_of: dict[str, Any] = {}
    for i, paper in enumerate(papers):
        key = _key(paper, i, paper_of)
        paper_of[key] = paper
        gold[key] = [s for s in paper.sentences() if s.gold]
    if not any(gold.values()):
        raise InputError(", ".join(corpora), "no sentence carries a gold label, so there is "
                                             "nothing to compare against")
    return ({k: v for k, v in gold.items() if v},
            {k: p for k, p in paper_of.items() if gold[k]})


def _side(spec: str, name: str, papers, gold, corpora: str,
          copies: set[str]) -> dict[str, Any]:
    """One side: its predictions by paper key, and the model (None for an output).
    ``corpora``: the gold corpus, as messages name it."""
    from ..model.storage import BUNDLED_MODELS

    path = Path(spec)
    if (path.is_dir() and (path / "config.json").is_file()) or (
            not path.exists() and spec in BUNDLED_MODELS):
        from ..pipeline import open_model

        model = open_model(spec)
        _check_labels(gold, model.labels_, corpora, f"{name} ({spec})")
        model.annotate(papers)
        pred = {k: [s.pred_codes or ["-"] for s in sents] for k, sents in gold.items()}
        return {"name": spec, "kind": "model", "model": model, "pred": pred}
    if not path.exists():
        raise UsageError(f"{name} = {spec}: no such file or directory, and not a bundled "
                         f"model ({', '.join(BUNDLED_MODELS)})")
    pred = _read_output(path, gold, copies)
    _check_labels(gold, (c for lists in pred.values() for codes in lists for c in codes
                         if c != "-"), corpora, f"{name} ({spec})")
    return {"name": spec, "kind": "annotated output", "model": None, "pred": pred}


def _check_labels(gold, predicted, corpora: str, what: str) -> None:
    """Refuse a side whose labels and the gold's share none (two label schemes)."""
    from ..evaluation import check_label_sets

    try:
        check_label_sets((c for sents in gold.values() for s in sents for c in s.gold_codes),
                         predicted, corpora, what)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _read_output(path: Path, gold, copies: set[str]) -> dict[str, list[list[str]]]:
    """Predictions of an annotated output, aligned to the gold sentences by paper id and
    sid (same text); the first paper or sentence that does not match is an error.
    ``copies``: ids of papers left out of the gold as second copies."""
    from ..agreement import normalise_text
    from ..readers import read_inputs

    result = read_inputs([path])
    if result.errors:
        raise result.errors[0]
    by_id = {}
    for paper in result.papers:
        if paper.id in by_id:
            raise InputError(path, f"paper {paper.id!r} occurs twice")
        by_id[paper.id] = paper
    if not any(s.pred for p in by_id.values() for s in p.sentences()):
        raise InputError(path, "no sentence carries a predicted label (is it annotated "
                               "output of `coresc annotate`?)")
    extra = sorted(set(by_id) - {k.split("#")[0] for k in gold} - copies)
    if extra:
        raise InputError(path, f"paper {extra[0]!r} is not in the gold corpus "
                               f"({len(extra)} such papers): the two sides must cover the "
                               "same papers")
    pred: dict[str, list[list[str]]] = {}
    for key, sents in gold.items():
        paper = by_id.get(key.split("#")[0])
        if paper is None:
            raise InputError(path, f"paper {key!r} of the gold corpus is missing")
        mine = {s.sid: s for s in paper.sentences()}
        pred[key] = []
        for s in sents:
            other = mine.get(s.sid)
            if other is None or normalise_text(other.text) != normalise_text(s.text):
                what = "is missing" if other is None else "has other text"
                raise InputError(path, f"paper {key!r}, sentence {s.sid}: {what} (the first "
                                       "sentence that does not match the gold corpus)")
            pred[key].append(other.pred_codes or ["-"])
    return pred


def _held_out(paper_of, sides, corpora) -> tuple[list[str], list[dict[str, str]]]:
    """The paper keys neither model was trained on, and the left-out ones with why."""
    from ..model.provenance import seen_in_training

    keys = list(paper_of)
    left: dict[str, str] = {}
    for side in sides:
        if side["model"] is None:
            continue
        try:
            seen = seen_in_training(side["model"].meta_, [paper_of[k] for k in keys])
        except LookupError:
            side["training_papers"] = "not recorded"
            continue
        for k, how in zip(keys, seen, strict=True):
            if how and k not in left:
                left[k] = f"in {side['name']}'s training data ({how})"
    keep = [k for k in keys if k not in left]
    if not keep:
        models = " or ".join(dict.fromkeys(s["name"] for s in sides if s["model"]))
        raise UsageError(f"{_names(corpora)}: every paper was in the training data of "
                         f"{models}; an "
                         "in-sample comparison says nothing about new papers, so it is "
                         "refused (compare on held-out papers, or on the held-out "
                         "predictions of cross-validation runs)")
    return keep, [{"paper": k, "why": why} for k, why in left.items()]


def _summary(result: dict[str, Any], sides, left_out) -> dict[str, Any]:
    """The JSON document: ``a``, ``b``, ``difference``, ``papers_needed``, ``n_papers``
    ... (issue 31's keys, issue 36's additions)."""
    from .. import stats

    def side(tag: str, info: dict[str, Any]) -> dict[str, Any]:
        ci = result[f"{tag}_ci"]
        return {"name": info["name"], "kind": info["kind"],
                "accuracy": result[tag]["accuracy"], "accuracy_ci": ci["accuracy"],
                "macro_f1": result[tag]["macro_f1"], "macro_f1_ci": ci["macro_f1"],
                "per_label_f1": {k[3:]: {"f1": result[tag][k], "f1_ci": ci[k]}
                                 for k in result[tag] if k.startswith("f1/")}}

    diff, dci, p = result["difference"], result["difference_ci"], result["p"]
    method = {"interval": f"{stats.METHOD}, paired", "test": result["test"],
              "level": result["level"], "strata": result["strata"]}
    if "not_stratified" in result:
        method["not_stratified"] = result["not_stratified"]
    return {
        "a": side("a", sides[0]), "b": side("b", sides[1]),
        "difference": {
            "accuracy": diff["accuracy"], "accuracy_ci": dci["accuracy"],
            "p_accuracy": p["accuracy"], "macro_f1": diff["macro_f1"],
            "macro_f1_ci": dci["macro_f1"], "p_macro_f1": p["macro_f1"],
            "per_label_f1": {k[3:]: {"f1": diff[k], "f1_ci": dci[k], "p": p[k],
                                     "p_holm": result["p_holm"][k]}
                             for k in diff if k.startswith("f1/")},
        },
        "papers_needed": result["papers_needed"],
        "verdict": {"accuracy": stats.verdict(result, "accuracy"),
                    "macro_f1": stats.verdict(result, "macro_f1")},
        "caution": result["caution"],
        "n_papers": result["n_papers"], "n_sentences": result["n_sentences"],
        "left_out": left_out,
        "training_papers_unknown": [s["name"] for s in sides
                                    if s.get("training_papers") == "not recorded"],
        "method": method,
    }


def _ci(pair, sign: bool = False) -> str:
    from ..stats import signed

    if sign:
        return f"[{signed(pair[0])}, {signed(pair[1])}]"
    return f"[{100 * pair[0]:.1f}, {100 * pair[1]:.1f}]"


def render(out: dict[str, Any]) -> str:
    """The plain-text report (percent points)."""
    a, b, d = out["a"], out["b"], out["difference"]
    lines = [f"A: {a['name']} ({a['kind']})", f"B: {b['name']} ({b['kind']})",
             f"{out['n_papers']} papers, {out['n_sentences']} gold sentences"]
    if out["caution"]:
        lines.append(out["caution"])
    for paper in out["left_out"]:
        lines.append(f"left out: {paper['paper']} ({paper['why']})")
    for name in out["training_papers_unknown"]:
        lines.append(f"WARNING: {name} does not record its training papers: these scores "
                     "may be in-sample")
    outputs = [x["name"] for x in (a, b) if x["kind"] == "annotated output"]
    if outputs:
        lines.append(f"note: an annotated output does not say what its model was trained "
                     f"on ({', '.join(outputs)}); the papers must be held out for it")
    lines += ["", f"{'':<10}{'A %':>8} {'95% CI':<14}{'B %':>8} {'95% CI':<14}{'B - A':>7} "
              f"{'95% CI':<15}{'p':>7}"]
    rows = [("accuracy", "accuracy", "accuracy_ci", "p_accuracy"),
            ("macro-F1", "macro_f1", "macro_f1_ci", "p_macro_f1")]
    for title, key, ci, p in rows:
        lines.append(_row(title, a[key], a[ci], b[key], b[ci], d[key], d[ci], d[p]))
    lines += ["", "per-label F1 (p Holm-adjusted over the labels; the intervals are not)"]
    for lab, x in d["per_label_f1"].items():
        sa, sb = a["per_label_f1"][lab], b["per_label_f1"][lab]
        lines.append(_row(lab, sa["f1"], sa["f1_ci"], sb["f1"], sb["f1_ci"], x["f1"],
                          x["f1_ci"], x["p_holm"]))
    lines += ["", out["verdict"]["accuracy"] + ".", out["verdict"]["macro_f1"] + ".", "",
              _method_line(out["method"]), "", *_needed_lines(out["papers_needed"])]
    return "\n".join(lines) + "\n"


def _method_line(m: dict[str, Any]) -> str:
    if m["strata"] > 1:
        how = f"stratified by {m['strata']} folds or corpora"
    else:
        how = m.get("not_stratified", "one stratum")
    return f"intervals: {m['interval']} ({how}); p: {m['test']}"


def _needed_lines(needed: dict[str, dict[str, int | None]]) -> list[str]:
    """How many papers would detect 1, 2 and 5 points, from these papers' spread."""
    lines = ["papers needed to detect a difference (80% power, p < 0.05), from these "
             "papers' spread:"]
    for key, title in (("accuracy", "accuracy"), ("macro_f1", "macro-F1")):
        cells = [f"{pts} point{'s' * (pts != '1')}: {n if n is not None else '-'}"
                 for pts, n in needed[key].items()]
        lines.append(f"  {title:<10} " + "   ".join(cells))
    if any(n is None for x in needed.values() for n in x.values()):
        lines.append("  (-: the two sides do not differ from paper to paper, so there is no "
                     "spread to plan from)")
    return lines


def _row(title, va, ca, vb, cb, vd, cd, p) -> str:
    from ..stats import format_p, signed

    return (f"{title:<10}{100 * va:>8.1f} {_ci(ca):<14}{100 * vb:>8.1f} {_ci(cb):<14}"
            f"{signed(vd):>7} {_ci(cd, True):<15}{format_p(p):>7}")
