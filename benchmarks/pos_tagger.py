"""POS tagger benchmark: held-out accuracy on the OA-STM treebank, and speed on one core.

    OMP_NUM_THREADS=1 python benchmarks/pos_tagger.py [--crf] [--speed-papers N]

Accuracy: leave-one-paper-out over the 10 treebank papers (train on 9, test on the 10th),
against the gold hand-made treebank tags, on the tokens our tokenizer would produce
(hyphenated words rejoined). Printed per paper, pooled over tokens, and as the mean over
papers, for the perceptron tagger of ``coresc.pos``, a most-frequent-tag baseline and,
with ``--crf``, a sklearn-crfsuite CRF on the same word features (slow to train).

Speed: the bundled tagger (``coresc/models/pos/tagger.npz``) tokenizes and tags the
sentences of ART fold ann1 (real text); tokens/s and sentences/s, for a freshly loaded
tagger (cold word cache) and a second pass (warm), as CPU time of the (single-threaded)
process.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "experiments"))

from train_pos_tagger import load_treebank  # noqa: E402

from coresc.config import data_dir  # noqa: E402
from coresc.pos.features import NORMALISE as _NORMALISE  # noqa: E402
from coresc.pos.features import word_features as _word_features  # noqa: E402
from coresc.pos.tagger import DEFAULT_MODEL, PosTagger  # noqa: E402
from coresc.tokenize import tokenize  # noqa: E402


class LexiconTagger:
    """Baseline: a word's most frequent training tag; unknown words by their longest known
    suffix (up to 4 characters), capitalised unknown words as NNP."""

    def train(self, sentences):
        words, suffixes = defaultdict(Counter), defaultdict(Counter)
        for s in sentences:
            for w, t in s:
                w = _NORMALISE.get(w, w)
                words[w][t] += 1
                for k in range(1, 5):
                    suffixes[w.lower()[-k:]][t] += 1
        self.words = {w: c.most_common(1)[0][0] for w, c in words.items()}
        self.suffixes = {s: c.most_common(1)[0][0] for s, c in suffixes.items()}
        return self

    def tag(self, tokens):
        out = []
        for i, tok in enumerate(tokens):
            w = _NORMALISE.get(tok, tok)
            tag = self.words.get(w)
            if tag is None:
                if i > 0 and w[:1].isupper():
                    tag = "NNP"
                else:
                    low = w.lower()
                    tag = next((self.suffixes[low[-k:]] for k in (4, 3, 2, 1)
                                if low[-k:] in self.suffixes), "NN")
            out.append(tag)
        return out


class CRFTagger:
    """sklearn-crfsuite linear-chain CRF on the perceptron's word features (for comparison)."""

    def __init__(self, clusters):
        import sklearn_crfsuite

        self.clusters = clusters
        self.crf = sklearn_crfsuite.CRF(algorithm="lbfgs", c1=0.05, c2=0.01, max_iterations=100)

    def _features(self, tokens):
        words = [_NORMALISE.get(t, t) for t in tokens]
        padded = ["-START2-", "-START-", *words, "-END-", "-END2-"]
        feats = [_word_features(w, self.clusters) for w in padded]
        out = []
        for i in range(2, len(padded) - 2):
            names = feats[i][0] + feats[i - 1][1] + feats[i + 1][2] + feats[i - 2][3] \
                + feats[i + 2][4]
            out.append({n: 1.0 for n in names})
        return out

    def train(self, sentences):
        self.crf.fit([self._features([w for w, _ in s]) for s in sentences],
                     [[t for _, t in s] for s in sentences])
        return self

    def tag(self, tokens):
        return list(self.crf.predict_single(self._features(tokens)))


def is_verb(tag: str) -> bool:
    return tag.startswith("VB") or tag == "MD"


def evaluate(make, papers) -> dict:
    """Leave-one-paper-out: per-paper accuracy plus pooled accuracy, unknown-word accuracy
    and verb-tag (VB*, MD) precision/recall."""
    per_paper, ok, n, unk_ok, unk_n = {}, 0, 0, 0, 0
    v_tp = v_pred = v_gold = 0
    train_s = tag_s = 0.0
    for k, (pid, test) in enumerate(papers.items()):
        train = [s for other, sents in papers.items() if other != pid for s in sents]
        vocab = {_NORMALISE.get(w, w) for s in train for w, _ in s}
        t0 = time.perf_counter()
        tagger = make().train(train)
        t1 = time.perf_counter()
        p_ok = p_n = 0
        for s in test:
            pred = tagger.tag([w for w, _ in s])
            for (w, g), p in zip(s, pred, strict=True):
                hit = g == p
                p_ok += hit
                p_n += 1
                if _NORMALISE.get(w, w) not in vocab:
                    unk_ok += hit
                    unk_n += 1
                v_gold += is_verb(g)
                v_pred += is_verb(p)
                v_tp += is_verb(g) and g == p
        tag_s += time.perf_counter() - t1
        train_s += t1 - t0
        per_paper[pid] = (p_ok / p_n, p_n)
        ok, n = ok + p_ok, n + p_n
        print(f"[coresc] fold {k + 1}/{len(papers)} done", file=sys.stderr)
    return {
        "per_paper": per_paper,
        "pooled": ok / n,
        "mean": sum(a for a, _ in per_paper.values()) / len(per_paper),
        "unknown": unk_ok / max(unk_n, 1),
        "unknown_share": unk_n / n,
        "verb_precision": v_tp / max(v_pred, 1),
        "verb_recall": v_tp / max(v_gold, 1),
        "train_s": train_s / len(papers),
        "tokens_per_s": n / tag_s,
    }


def speed(n_papers: int) -> dict:
    """Tokenize + tag real ART sentences with the bundled tagger, cold then warm."""
    from coresc.readers import read_corpus

    folder = data_dir() / "art-corpus" / "ann1"
    files = sorted(folder.glob("*.xml"))[:n_papers]
    texts = [s.text for p in read_corpus(files) for s in p.sentences()]
    # CPU time of this process: on the shared 2-core machine wall time would also count
    # other people's jobs; the code is single-threaded, so this is one core's time
    t0 = time.process_time()
    tokens = [tokenize(t) for t in texts]
    t_tok = time.process_time() - t0
    n_tok = sum(len(t) for t in tokens)
    tagger = PosTagger.load(DEFAULT_MODEL)
    runs = []
    for _ in range(2):
        t0 = time.process_time()
        for t in tokens:
            tagger.tag(t)
        runs.append(time.process_time() - t0)
    return {"sentences": len(texts), "tokens": n_tok, "tokenize_s": t_tok,
            "tag_cold_s": runs[0], "tag_warm_s": runs[1]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--speed-only", action="store_true", help="skip the accuracy part")
    parser.add_argument("--treebank", type=Path, default=data_dir() / "oa-stm" / "treebank")
    parser.add_argument("--crf", action="store_true", help="also evaluate a crfsuite CRF")
    parser.add_argument("--speed-papers", type=int, default=25,
                        help="ART ann1 papers used for the speed test")
    args = parser.parse_args(argv)

    if not args.speed_only:
        report_accuracy(args)
    report_speed(args)
    return 0


def report_accuracy(args: argparse.Namespace) -> None:
    papers = load_treebank(args.treebank)
    print(f"treebank: {len(papers)} papers, {sum(len(s) for s in papers.values())} "
          f"sentences, {sum(len(x) for s in papers.values() for x in s)} tokens (gold tags)")
    # the bundled model's word clusters were learnt without the treebank papers' text
    clusters = PosTagger.load(DEFAULT_MODEL).clusters
    models = {
        "perceptron (coresc.pos)": lambda: PosTagger(clusters=clusters),
        "perceptron, no clusters": PosTagger,
        "most-frequent-tag baseline": LexiconTagger,
    }
    if args.crf:
        models["crfsuite CRF, same features"] = lambda: CRFTagger(clusters)
    results = {name: evaluate(make, papers) for name, make in models.items()}

    names = list(results)
    print("\nleave-one-paper-out accuracy (gold treebank tags)")
    print(f"{'paper':<22}{'tokens':>7}" + "".join(f"{n[:26]:>28}" for n in names))
    for pid in papers:
        n_tok = results[names[0]]["per_paper"][pid][1]
        print(f"{pid:<22}{n_tok:>7}"
              + "".join(f"{results[n]['per_paper'][pid][0]:>28.4f}" for n in names))
    for key, label in (("mean", "mean over papers"), ("pooled", "pooled over tokens"),
                       ("unknown", "unknown words"), ("verb_precision", "verb tag precision"),
                       ("verb_recall", "verb tag recall")):
        print(f"{label:<29}" + "".join(f"{results[n][key]:>28.4f}" for n in names))
    print(f"{'train seconds (per fold)':<29}"
          + "".join(f"{results[n]['train_s']:>28.1f}" for n in names))
    print(f"{'tag tokens/s (cold, no tok.)':<29}"
          + "".join(f"{results[n]['tokens_per_s']:>28,.0f}" for n in names))
    print(f"unknown-word share of test tokens: {results[names[0]]['unknown_share']:.3f}")


def report_speed(args: argparse.Namespace) -> None:
    sp = speed(args.speed_papers)
    print(f"\nspeed, bundled tagger, one process, ART ann1 ({sp['sentences']} sentences, "
          f"{sp['tokens']} tokens)")
    print(f"tokenize:              {sp['tokens'] / sp['tokenize_s']:>10,.0f} tokens/s "
          f"{sp['sentences'] / sp['tokenize_s']:>9,.0f} sentences/s")
    for key, label in (("tag_cold_s", "tag (cold cache):"), ("tag_warm_s", "tag (warm cache):")):
        print(f"{label:<22} {sp['tokens'] / sp[key]:>10,.0f} tokens/s "
              f"{sp['sentences'] / sp[key]:>9,.0f} sentences/s")
    both = sp["tokenize_s"] + sp["tag_cold_s"]
    print(f"tokenize + tag (cold): {sp['tokens'] / both:>10,.0f} tokens/s "
          f"{sp['sentences'] / both:>9,.0f} sentences/s "
          f"({both / sp['sentences'] * 1e3:.3f} ms/sentence)")


if __name__ == "__main__":
    raise SystemExit(main())
