"""Training: the work of :meth:`CoreSCClassifier.fit` and the steps it takes (inner
cross-validation of the CRF's regularisation, the stacked CRF, per-domain biases, the
secondary layer, the encoder), as functions of the estimator (``model``: a
:class:`~coresc.model.classifier.CoreSCClassifier`) that set its fitted attributes, as
scikit-learn's ``LinearSVC.fit`` calls ``_fit_liblinear``. This module never imports the
class: the estimator calls down into it."""

from __future__ import annotations

import datetime as _dt
import time
from collections.abc import Sequence

import numpy as np

from .._version import __version__
from ..document import Paper
from ..errors import CorescError
from ..features import (
    marginal_features,
    paper_labels,
    sentence_blocks,
)
from ..labels import sort_key
from .calibration import MIN_POINTS, fit_calibration
from .crf import (
    balanced_folds,
    crf_tag,
    full_marginals,
    open_tagger,
    train_crf,
    tune_bias,
)
from .domains import (
    MIN_DOMAIN_PAPERS,
    paper_domains,
)
from .encoder import EncoderSettings, OnnxEncoder
from .mixing import (
    absent_scale,
    expected_counts,
    label_counts,
    mix_weights,
    source_marginals,
)
from .progress import _fmt_time
from .provenance import training_record
from .ranking import rank_labels
from .secondary import design, fit_ovr, ovr_scores, sigmoid, tune_thresholds, vocabulary
from .source import SourceSettings
from .storage import (
    MODEL_FORMAT,
)


def _fit_encoder(model, papers: list[Paper], labels) -> list[np.ndarray]:
    """Fine-tune the encoder; out-of-fold probabilities of the training papers."""
    from .finetune.oof import fit_encoder

    settings = EncoderSettings.from_dict(model.encoder)
    model._encoder_labels = sorted({lab for seq in labels for lab in seq if lab},
                                   key=sort_key)
    k = min(settings.inner_folds, len(papers))
    if k < 2:
        raise CorescError("a sentence encoder needs at least 2 training papers")
    folds = inner_folds(model, papers, [p.sentences() for p in papers], k)
    oof, fitted = fit_encoder(papers, labels, model._encoder_labels, settings, folds,
                              model.device, model._log)
    model._encoder_fitted = fitted
    model._encoder = OnnxEncoder(fitted.onnx, fitted.tokenizer, fitted.info)
    return oof


def fit_model(model, papers: Sequence[Paper], encoder=None) -> None:
    """Train ``model`` on papers with gold labels (unlabelled sentences are not trained
    on): sets its fitted attributes (``labels_``, the CRFs, biases, layers, ``meta_``).
    ``encoder``: see :meth:`~coresc.model.CoreSCClassifier.fit`."""
    model._validate()
    papers = list(papers)
    labels = [paper_labels(p) for p in papers]
    if not any(lab for seq in labels for lab in seq):
        raise CorescError("no sentence with a gold label in the training data")
    t0 = time.monotonic()
    model._encoder = model._encoder_fitted = None
    model.source_mix_, model.source_absent_ = {}, {}
    oof_enc = None
    if encoder is not None:
        if model.encoder is None:
            raise CorescError("an encoder was given to fit, but the model has no encoder "
                              "settings (encoder=...)")
        model._encoder_labels, model._encoder = list(encoder.labels), encoder
        oof_enc = [encoder.predict_paper(p) for p in papers]
    elif model.encoder is not None:
        oof_enc = _fit_encoder(model, papers, labels)
    X = model.featurize(papers, encoder_probs=oof_enc)
    model.domains_ = tuple(sorted({t for p in papers
                                   for t in paper_domains(p, model.domains)}))
    if model.domains_:
        model._log(f"domain feature copies for {', '.join(model.domains_)}")
    model._log(f"features for {len(papers)} papers, "
               f"{sum(map(len, X))} sentences ({time.monotonic() - t0:.1f}s)")
    multi = [i for i, p in enumerate(papers)
             if any(len(s.gold) > 1 for s in p.sentences())]
    want_secondary = model.secondary and bool(multi)
    choose = model.c1 is None or model.c2 is None
    grid = model.c_grid if choose else ((float(model.c1), float(model.c2)),)
    cv_scores: dict[str, float] = {}
    oof_marg: list[tuple | None] = [None] * len(papers)
    folds = None
    balanced = model.decode == "balanced"
    if (choose and len(grid) > 1) or want_secondary or balanced or model.stack \
            or model.calibrate:
        k = min(model.inner_folds, len(papers))
        if k >= 2:
            folds = inner_folds(model, papers, X, k)
        elif model.stack:
            raise CorescError("stack needs at least 2 training papers")
    if folds is not None:
        best, cv_scores, oof_marg = inner_cv(model, X, labels, folds, grid)
    else:
        best = grid[0]
    model.c1_, model.c2_ = best
    model._log(f"final CRF with c1={best[0]} c2={best[1]}")
    model._crf_bytes, label_set = train_crf(X, labels, best[0], best[1],
                                            model.max_iterations, model.min_freq)
    model._open_tagger()
    model.labels_ = label_set
    if model._source is not None:
        label_set, oof_marg = _fit_source_mix(model, X, labels, oof_marg)
    stack_scores: dict[str, float] = {}
    model._stack_bytes = model._stack_tagger = None
    if model.stack:
        oof_marg, stack_scores = _fit_stack(
            model, papers, X, labels, folds, oof_marg, best,
            balanced or want_secondary or model.calibrate)
    model.label_bias_ = {}
    if balanced and folds is not None:
        model.label_bias_ = tune_bias(oof_marg, labels, list(label_set))
        model._log(f"label biases: {model.label_bias_}")
    model.domain_bias_ = {}
    if balanced and folds is not None:
        _tune_domain_bias(model, papers, labels, oof_marg, list(label_set))
    model._ovr = None
    oof_ovr: dict[tuple[int, int], np.ndarray] = {}
    if want_secondary and folds is not None:
        oof_ovr = _fit_secondary(model, X, papers, multi, folds, oof_marg)
    # raw scores -> probabilities, fitted out of fold (never on in-sample predictions)
    model.calibration_ = None
    if model.calibrate and folds is not None:
        rankings, golds, corpora = _oof_rankings(model, papers, X, oof_marg, oof_ovr)
        if len(rankings) >= MIN_POINTS:
            model.calibration_ = fit_calibration(rankings, golds, corpora)
            model._log(f"calibration: {model.calibration_.stats}")
        else:
            model._log(f"scores left uncalibrated: {len(rankings)} out-of-fold "
                       f"sentences, calibration needs {MIN_POINTS}")
    model.meta_ = {
        "format": MODEL_FORMAT,
        "coresc_version": __version__,
        "trained": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "labels": list(model.labels_),
        "n_papers": len(papers),
        "n_sentences": sum(len(x) for x in X),
        "n_labelled": sum(1 for seq in labels for lab in seq if lab),
        "c1": best[0], "c2": best[1], "label_bias": model.label_bias_,
        "source_mix": model.source_mix_, "source_absent": model.source_absent_,
        "domains": list(model.domains_), "domain_bias": model.domain_bias_,
        "inner_cv_accuracy": cv_scores,
        "stack_inner_cv_accuracy": stack_scores,
        "secondary": model._ovr["meta"] if model._ovr else None,
        "encoder": model._encoder_fitted.info if model._encoder_fitted else None,
        "calibration": model.calibration_.stats if model.calibration_ else None,
        "train_seconds": round(time.monotonic() - t0, 1),
        "training_data": training_record(papers),
    }


def _fit_source_mix(model, X, labels, oof_marg) -> tuple[tuple[str, ...], list]:
    """An adapted model's per-label weights against its source (:mod:`.mixing`, unless
    its source settings say ``mix: false``): its labels become both models', and the
    out-of-fold marginals the biases, the secondary layer and the calibration are fitted
    on are mixed as predictions will be."""
    model.source_mix_, model.source_absent_ = {}, {}
    settings, src = SourceSettings.from_dict(model.source), model._source
    if not settings.mix:
        return model.labels_, oof_marg
    if not set(model.labels_) & set(src.labels_):
        # another label scheme (CSAbstruct papers, a CoreSC source): mixing would add
        # the source's labels to a model of the reviewed papers' scheme
        model._log("note: the reviewed papers' labels and the source's share none (another "
                   "label scheme): the labels are not mixed with the source's")
        return model.labels_, oof_marg
    union = tuple(sorted(set(model.labels_) | set(src.labels_), key=sort_key))
    counts = label_counts(labels)
    model.source_mix_ = mix_weights(counts, union, src.labels_)
    bias = src.label_bias_ if src.decode == "balanced" else {}
    marginals = [source_marginals(x, src.labels_, settings.scale) for x in X]
    model.source_absent_ = absent_scale(
        counts, expected_counts(marginals, labels, src.labels_, bias))
    model.labels_ = union
    model._log(f"mixed with the source per label: {model.source_mix_}; the source's "
               f"labels the reviewed papers never show, scaled: {model.source_absent_}")
    return union, [None if m is None else (m[0], model._mix(m[1], x))
                   for m, x in zip(oof_marg, X, strict=True)]


def inner_folds(model, papers, X, k: int) -> list[int]:
    """Inner fold per paper: by paper, or by whole source folder with folder copies.

    With per-folder feature copies a held-out paper whose folder-mates stay in
    training is scored through its folder's copies, which a test folder never has;
    holding out whole folders keeps out-of-fold marginals as good as test ones.
    """
    sizes = [len(x) for x in X]
    if "folder" not in model.domains:
        return balanced_folds(sizes, k)
    names = [paper_domains(p, ("folder",)) for p in papers]
    groups = sorted({n[0] if n else "" for n in names})
    if len(groups) < k:
        return balanced_folds(sizes, k)
    index = {g: i for i, g in enumerate(groups)}
    of_paper = [index[n[0] if n else ""] for n in names]
    totals = [0] * len(groups)
    for g, n in zip(of_paper, sizes, strict=True):
        totals[g] += n
    group_fold = balanced_folds(totals, k)
    return [group_fold[g] for g in of_paper]


def inner_cv(model, X, labels, folds, grid):
    """Pick (c1, c2) by inner-fold accuracy; keep that point's out-of-fold marginals.

    Accuracy is that of the Viterbi path for ``decode="viterbi"`` and of the largest
    marginal otherwise (the biases of "balanced" are tuned later, on these marginals).
    """
    k = max(folds) + 1
    scores: dict[str, float] = {}
    margs: dict[tuple, list] = {}
    t0 = time.monotonic()
    n_fits = len(grid) * k
    done = 0
    for c1, c2 in grid:
        correct = total = 0
        oof: list[tuple | None] = [None] * len(X)
        for f in range(k):
            tr = [i for i in range(len(X)) if folds[i] != f]
            te = [i for i in range(len(X)) if folds[i] == f]
            crf_bytes, label_set = train_crf([X[i] for i in tr], [labels[i] for i in tr],
                                             c1, c2, model.max_iterations, model.min_freq)
            tagger = open_tagger(crf_bytes)
            for i in te:
                pred, marg = crf_tag(tagger, X[i], label_set)
                oof[i] = (pred, marg)
                for p, g in zip(model._decode(pred, marg, {}), labels[i], strict=True):
                    if g:
                        total += 1
                        correct += p == g
            done += 1
            left = (time.monotonic() - t0) / done * (n_fits - done)
            model._log(f"inner CV c1={c1} c2={c2} fold {f + 1}/{k} done, "
                       f"{_fmt_time(left)} left")
        acc = correct / max(total, 1)
        scores[f"c1={c1},c2={c2}"] = round(acc, 4)
        margs[(c1, c2)] = oof
        model._log(f"inner CV c1={c1} c2={c2}: accuracy {acc:.4f}")
    best = max(grid, key=lambda p: scores[f"c1={p[0]},c2={p[1]}"])
    return best, scores, margs[best]


def _fit_stack(model, papers, X, labels, folds, oof_marg, best, need_oof):
    """Train the second CRF on first-pass out-of-fold marginals in context.

    Returns the out-of-fold marginals that decoding biases and the secondary layer
    are tuned on: the stacked CRF's own (one more inner CV) when ``need_oof``, else
    the first pass's unchanged.
    """
    X2 = [marginal_features(x, model._full(m[1]), model.labels_, sentence_blocks(p))
          for p, x, m in zip(papers, X, oof_marg, strict=True)]
    model._log("stacked CRF on the first pass's out-of-fold marginals")
    model._stack_bytes, _ = train_crf(X2, labels, best[0], best[1],
                                      model.max_iterations, model.min_freq)
    model._stack_tagger = open_tagger(model._stack_bytes)
    if not need_oof:
        return oof_marg, {}
    _, scores, oof2 = inner_cv(model, X2, labels, folds, (best,))
    return oof2, scores


def _tune_domain_bias(model, papers, labels, oof_marg, label_set: list[str]) -> None:
    """Label biases per domain, tuned on that domain's papers' out-of-fold marginals.

    The CRF's label priors follow the pooled training data, which a large auxiliary
    corpus dominates; a paper of a known domain is decoded with its own biases.
    """
    tags_of = [paper_domains(p, model.domains) for p in papers]
    for tag in model.domains_:
        members = [i for i, tags in enumerate(tags_of) if tag in tags]
        if len(members) < MIN_DOMAIN_PAPERS:
            continue
        sub = [oof_marg[i] if tag in tags_of[i] else None for i in range(len(papers))]
        model.domain_bias_[tag] = tune_bias(sub, labels, label_set)
        model._log(f"label biases for {tag}: {model.domain_bias_[tag]}")


def _fit_secondary(model, X, papers, multi, folds, oof_marg) -> dict[tuple[int, int],
                                                                     np.ndarray]:
    """Train the one-vs-rest layer; return its out-of-fold probabilities by
    (paper, sentence) index, for calibration."""
    rows = [(i, j) for i in multi for j, s in enumerate(papers[i].sentences()) if s.gold]
    vocab = vocabulary((X[i][j] for i, j in rows), model.min_freq)
    labels = list(model.labels_)
    feats = [X[i][j] for i, j in rows]
    marg = np.vstack([full_marginals(oof_marg[i][1][j], labels) for i, j in rows])
    gold = [papers[i].sentences()[j].gold_codes for i, j in rows]
    Xs = design(feats, vocab, marg)
    Y = np.array([[lab in g for lab in labels] for g in gold], dtype=np.int8)
    groups = np.array([folds[i] for i, _ in rows])
    oof_prob = np.zeros(Y.shape)
    for f in sorted(set(groups.tolist())):
        tr, te = groups != f, groups == f
        W, b = fit_ovr(Xs[tr], Y[tr], model.ovr_c, model.seed)
        oof_prob[te] = sigmoid(Xs[te] @ W.T + b)
    decoded = {i: model._decode(*oof_marg[i], model._bias_for(papers[i])) for i in multi}
    primary = [decoded[i][j] for i, j in rows]
    t2, t3, tune = tune_thresholds(oof_prob, labels, primary, gold, model.max_secondary_rate)
    W, b = fit_ovr(Xs, Y, model.ovr_c, model.seed)
    keep = np.flatnonzero(np.abs(W[:, : len(vocab)]).max(axis=0) > 1e-6)
    names = sorted(vocab, key=vocab.get)
    model._ovr = {
        "vocab": {names[c]: n for n, c in enumerate(keep)},
        "coef": np.hstack([W[:, keep], W[:, len(vocab):]]).astype(np.float32),
        "intercept": b.astype(np.float32),
        "labels": labels,
        "meta": {"threshold2": t2, "threshold3": t3, "n_sentences": len(rows),
                 "n_papers": len(multi), "n_features": int(len(keep)),
                 "tuning": tune},
    }
    model._log(f"secondary layer: thresholds {t2:.3f}/{t3:.3f}, "
               f"{len(keep)} features, tuned on {len(rows)} sentences")
    return dict(zip(rows, oof_prob, strict=True))


def _oof_rankings(model, papers, X, oof_marg, oof_ovr):
    """Raw rankings of the gold-labelled training sentences from out-of-fold
    predictions, their gold labels and their papers' corpora (what
    :func:`fit_calibration` fits on).

    The one-vs-rest layer's probabilities are its own out-of-fold ones for the papers
    it was trained on, and the final layer's (which never saw them) for the others.
    """
    rankings, golds, corpora = [], [], []
    for i, (paper, x) in enumerate(zip(papers, X, strict=True)):
        sents = paper.sentences()
        keep = [j for j, s in enumerate(sents) if s.gold]
        if oof_marg[i] is None or not keep:
            continue
        viterbi, marg = oof_marg[i]
        probs = None
        if model._ovr is not None:
            probs = sigmoid(ovr_scores(x, model._ovr, model._full(marg)))
            for j in keep:
                if (i, j) in oof_ovr:
                    probs[j] = oof_ovr[(i, j)]
        ranked = rank_labels(model.labels_, model._decode(viterbi, marg, model._bias_for(paper)),
                             marg, probs)
        rankings += [ranked[j] for j in keep]
        golds += [sents[j].gold_codes for j in keep]
        corpora += [paper.meta.get("corpus")] * len(keep)
    return rankings, golds, corpora
