"""The model card of a model directory: what it was trained on, how good it is, its limits.

Everything on the card is generated, never typed in: :func:`card_markdown` renders it from
the directory's ``meta.json`` and ``config.json`` (training corpora, counts, label
distribution, settings, version, date, the command that built it) and, when present,
``evaluation.json``: held-out results of the experiment runner and the weaknesses seen in
its held-out predictions, made by :func:`~coresc.model.weakness.evaluation_from_predictions`
(called by ``experiments/model_card.py`` on finished MLflow runs, never on in-sample
predictions).
:func:`write_card` puts the rendering in ``MODEL_CARD.md``; ``coresc model-info`` prints it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..labels import LABEL_NAMES, is_coresc, sort_key
from .integrity import ModelError
from .licences import (  # noqa: F401 (public here before)
    CORPUS_LICENCES,
    licence_section,
    recognised,
    recorded_training,
    uses_art,
    what_and_licence,
)
from .mixing import MIX_T
from .storage import (
    DEFAULT_MODEL_DIR,
    EVALUATION_FILE,
    read_evaluation,
    read_json,
    read_meta,
    write_atomic,
)

CARD_FILE = "MODEL_CARD.md"



def _adapted(meta: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The ``adapted_from`` record of a model adapted with ``coresc train --from``."""
    record = meta.get("adapted_from")
    return record if isinstance(record, Mapping) else None


# ---------------------------------------------------------------- rendering


def card_markdown(model_dir: str | Path) -> str:
    """The model card of ``model_dir`` as Markdown (see the module docstring)."""
    d = Path(model_dir)
    meta = read_meta(d)
    config = read_json(d / "config.json")
    if not isinstance(config, dict):
        raise ModelError(d / "config.json", "must hold a JSON object")
    evaluation = read_evaluation(d)
    if evaluation is not None and evaluation.get("model_trained") != meta.get("trained"):
        evaluation = None  # made for an earlier training of this directory
    name = d.name or str(d)
    labels = meta.get("labels") if isinstance(meta.get("labels"), list) else []
    role = "its CoreSC discourse role" if is_coresc(map(str, labels)) else \
        f"its role in its training corpus's own scheme ({', '.join(map(str, labels))})"
    lines = [f"# Model card: coresc model `{name}`", "",
             f"Labels each sentence of a scientific paper with {role} "
             "(primary label, up to two secondary labels, each with a score); "
             + _how_to_use(d), "",
             f"coresc {meta.get('coresc_version', '?')} model, trained "
             f"{meta.get('trained', '?')}; {meta.get('n_papers', '?')} papers, "
             f"{meta.get('n_sentences', '?')} sentences "
             f"({meta.get('n_labelled', '?')} with a gold label).", ""]
    lines += _adapted_section(meta, config)
    lines += _training_section(meta)
    lines += licence_section(meta)
    lines += _evaluation_section(evaluation)
    lines += _scores_section(meta)
    lines += _weakness_section(evaluation)
    lines += _settings_section(meta, config)
    lines += _rebuild_section(meta, evaluation)
    return "\n".join(lines).rstrip() + "\n"


def _how_to_use(d: Path) -> str:
    """The card's "use it with" sentence; only the bundled default says it is the default."""
    use = f"use it with `coresc annotate --model {_model_argument(d)}`"
    try:
        default = d.resolve() == DEFAULT_MODEL_DIR.resolve()
    except OSError:
        default = False
    if default:
        return use + "; it is coresc's default model, so plain `coresc annotate` uses it too."
    return use + " (without `--model`, coresc uses its bundled default model, not this one)."


def _model_argument(d: Path) -> str:
    """What ``--model`` takes for this model: a bundled model's name (``fast``), which is
    not a path, or the directory (``my-model/``)."""
    from .storage import BUNDLED_DIR, BUNDLED_MODELS

    try:
        bundled = d.resolve().parent == BUNDLED_DIR and d.name in BUNDLED_MODELS.values()
    except OSError:
        bundled = False
    return d.name if bundled else f"{d.name or d}/"


def write_card(model_dir: str | Path) -> Path:
    """Write ``MODEL_CARD.md`` into ``model_dir`` (atomically); return its path.

    An ``evaluation.json`` made for an earlier training of the directory is removed, as
    is one that is no evaluation (a link, not JSON, the wrong shape).
    """
    d = Path(model_dir)
    try:
        evaluation = read_evaluation(d)
    except ModelError:
        with contextlib.suppress(OSError):  # a folder of that name stays, and is refused
            (d / EVALUATION_FILE).unlink()
    else:
        if evaluation is not None and evaluation.get("model_trained") != read_meta(d).get(
                "trained"):
            (d / EVALUATION_FILE).unlink()
    path = d / CARD_FILE
    write_atomic(path, card_markdown(model_dir).encode("utf-8"))
    return path


def _training_section(meta: Mapping[str, Any]) -> list[str]:
    record = recorded_training(meta)
    lines = ["## Training data", ""]
    corpora = record.get("corpora") or {}
    if not corpora:
        return lines + ["Not recorded (the model was saved before coresc recorded its "
                        "training papers).", ""]
    lines += ["| corpus | what | licence | papers | sentences | with a gold label |",
              "| --- | --- | --- | ---: | ---: | ---: |"]
    by_name = recognised(meta)
    for corpus, c in corpora.items():
        what, licence = what_and_licence(None if by_name is None else by_name.get(corpus))
        lines.append(f"| {corpus or '(unnamed)'} | {what} | {licence} | {c['papers']} | "
                     f"{c['sentences']} | {c['labelled']} |")
    counts = record.get("label_counts") or {}
    total = sum(counts.values())
    if total:
        lines += ["", "Primary gold labels of the training sentences:", "",
                  "| label | | sentences | share |", "| --- | --- | ---: | ---: |"]
        for lab in sorted(counts, key=sort_key):
            lines.append(f"| {lab} | {LABEL_NAMES.get(lab, '')} | {counts[lab]} | "
                         f"{100 * counts[lab] / total:.1f}% |")
    lines += ["", "Every training paper's id and content hash are in `meta.json` "
              "(`training_data`); `coresc evaluate` uses them to keep training papers apart "
              "from held-out ones.", ""]
    return lines


def _adapted_section(meta: Mapping[str, Any], config: Mapping[str, Any]) -> list[str]:
    record = _adapted(meta)
    if record is None:
        return []
    source = config.get("source")
    mix_on = source.get("mix") if isinstance(source, Mapping) else None
    corpora = ", ".join(f"{name or '(unnamed)'} ({c.get('papers', '?')} papers)"
                        for name, c in (record.get("corpora") or {}).items()) or "not recorded"
    reviewed = [p.get("id") for p in recorded_training(meta).get("papers") or []
                if isinstance(p, Mapping) and p.get("via") != "source"]
    lines = ["## Adapted model", "",
             f"Adapted from the model `{record.get('model') or '?'}` (trained "
             f"{record.get('trained', '?')} on {corpora}"
             + (", with a sentence encoder" if record.get("encoder") else "")
             + f") with `coresc train --from` on {len(reviewed)} reviewed papers: "
             f"{', '.join(f'`{r}`' for r in reviewed)}. The source model is kept in "
             "`source/`; its label probabilities for each sentence are features of this "
             "model's CRF, which was trained on the reviewed papers only.", ""]
    lines += _mixing_lines(meta.get("source_mix"), meta.get("source_absent"), mix_on)
    seen = record.get("seen_by_source")
    if seen:
        lines += [f"**Warning:** {len(seen)} of the reviewed papers were in the source "
                  f"model's training data ({', '.join(seen)}): its probabilities for them "
                  "were in-sample, so this model may trust the source too much.", ""]
    elif seen is None:
        lines += ["The source model does not record its training papers: whether it saw "
                  "the reviewed papers is unknown.", ""]
    return lines


def _mixing_lines(mix: Any, absent: Any = None, mix_on: Any = None) -> list[str]:
    """The per-label weights of the adapted model against its source (issue 38), or why
    there are none: switched off (``--no-mix``), or two label schemes (``mix_on``: the
    source setting ``mix``, None where the model predates it)."""
    if mix_on is False:
        return ["Its labels are its own CRF's: mixing with the source's was switched off "
                "(`coresc train --from ... --no-mix`).", ""]
    if not isinstance(mix, Mapping) or not mix:
        why = (": the reviewed papers' labels and the source's share none (another label "
               "scheme)") if mix_on else ""
        return [f"Its labels are its own CRF's, not mixed with the source's{why}.", ""]
    lines = ["Each label's probability is this model's and the source's mixed, the source "
             f"as it decodes: this model weighs `n / (n + {MIX_T:g})` for a label of `n` "
             "reviewed sentences, so a label the reviewed papers barely show stays the "
             "source's (`coresc/model/mixing.py`).", "",
             "| label | | this model's weight | the source's |", "| --- | --- | ---: | ---: |"]
    for lab in sorted(mix, key=sort_key):
        w = float(mix[lab])
        lines.append(f"| {lab} | {LABEL_NAMES.get(lab, '')} | {w:.2f} | {1 - w:.2f} |")
    lines.append("")
    if isinstance(absent, Mapping) and absent:
        scaled = ", ".join(f"{lab} x {float(v):.2f}" for lab, v in
                           sorted(absent.items(), key=lambda kv: sort_key(kv[0])))
        lines += ["Labels the reviewed papers never show, although the source expected "
                  "them there, keep the source's probability scaled down by how many it "
                  f"expected (`c / (e + c)`): {scaled}.", ""]
    return lines



def _evaluation_section(evaluation: Mapping[str, Any] | None) -> list[str]:
    lines = ["## Held-out accuracy", ""]
    if not evaluation or not evaluation.get("runs"):
        return lines + [
            "No held-out evaluation is recorded for this model. Scores on its own training "
            "papers say nothing about new papers: evaluate it on papers it was not trained "
            "on (`coresc evaluate` reports training papers apart), or run the experiment "
            "runner and `experiments/model_card.py` (see *Rebuild*).", ""]
    lines += ["From the experiment runner (`coresc experiment`) or "
              "`experiments/encoder_cv.py`: each test paper was "
              "labelled by a model trained without it, with this model's settings unless "
              "the last column says otherwise. Generated "
              f"{evaluation.get('generated', '?')}.", "",
              "| tested on | trained on | reference labels | sentences | accuracy | macro-F1 "
              "| ECE of the primary score | experiment (MLflow run) | settings |",
              "| --- | --- | --- | ---: | ---: | ---: | ---: | --- | --- |"]
    for r in evaluation["runs"]:
        m = r.get("metrics", {})
        silver = r.get("labels") == "silver"
        pre = "silver_" if silver else ""
        acc = m.get("silver_agreement" if silver else "accuracy")
        diff = "; ".join(r.get("settings") or []) or "same"
        lines.append(
            f"| {r.get('test')} | {r.get('train')} | "
            f"{'silver (agreement with SAPIENTA)' if silver else 'gold'} | "
            f"{int(m.get('n_sentences', 0))} | {_pct(acc)}{_ci(m, pre, silver)} | "
            f"{_num(m.get(pre + 'macro_f1'))} | "
            f"{_num(m.get(pre + 'ece_primary'))} | {r.get('config')}{_run_id(r)}"
            f" | {diff} |")
    return lines + [""]


def _ci(metrics: Mapping[str, Any], pre: str, silver: bool) -> str:
    """The run's 95% interval over papers, when it logged one."""
    name = "silver_agreement" if silver else "accuracy"
    low, high = metrics.get(f"{name}_ci_low"), metrics.get(f"{name}_ci_high")
    if low is None or high is None:
        return ""
    papers = metrics.get("n_papers")
    return f" [{_pct(low)}, {_pct(high)}]" + (f" ({int(papers)} papers)" if papers else "")


def _scores_section(meta: Mapping[str, Any]) -> list[str]:
    stats = meta.get("calibration")
    lines = ["## What a score means", ""]
    if not stats:
        return lines + ["Scores are uncalibrated: the primary label's is a CRF marginal, a "
                        "secondary label's a one-vs-rest probability. Do not read them as "
                        "probabilities.", ""]
    return lines + [
        "Every score is a calibrated probability that the label is one of the sentence's "
        "labels, on one scale for the primary and the secondary labels, non-increasing "
        "down each sentence's list. The calibration was fitted on out-of-fold predictions "
        f"of {stats.get('n', '?')} training sentences (inner folds), where the raw primary "
        "score (a CRF marginal) had an expected calibration error of "
        f"{_num(stats.get('ece_primary_raw'))}. On papers unlike the training papers, "
        "scores are less reliable: see the held-out ECE above, where one is recorded. "
        "`coresc annotate --min-score X` leaves sentences whose primary label scores below "
        "X without a label.", "", *_corpus_maps(stats)]


def _corpus_maps(stats: Mapping[str, Any]) -> list[str]:
    corpora = stats.get("by_corpus") or {}
    if not corpora:
        return []
    named = ", ".join(f"`{name}` ({v.get('n', '?')} sentences)"
                      for name, v in sorted(corpora.items()))
    return ["Each training corpus also has maps of its own, fitted on its out-of-fold "
            f"sentences: {named}. `coresc annotate --domain NAME` uses that corpus's maps "
            "for papers known to be like it; without `--domain`, the pooled maps.", ""]


def _weakness_section(evaluation: Mapping[str, Any] | None) -> list[str]:
    w = (evaluation or {}).get("weaknesses") or {}
    lines = ["## Known weaknesses", ""]
    if not w:
        return lines + ["Not measured: needs a held-out evaluation (see *Rebuild*).", ""]
    lines.append(f"From {w['n']} held-out sentences with gold labels "
                 "(examples: the wrong labels with the highest scores).")
    cap = w.get("captions")
    if cap:
        tops = ", ".join(f"{g} as {p} ({n})" for g, p, n in cap["top_confusions"])
        lines += ["", f"- **Figure and table captions**: {cap['n']} caption sentences, "
                  f"accuracy {_pct(cap['accuracy'])} against "
                  f"{_pct(cap['accuracy_elsewhere'])} elsewhere; most common errors: {tops}."]
        lines += _example_lines(cap["examples"])
    for pair in w.get("confusions", []):
        a, b = pair["labels"]
        ab, ba = pair[f"{a}_as_{b}"], pair[f"{b}_as_{a}"]
        lines += ["", f"- **{a} vs {b}** ({LABEL_NAMES.get(a, a)} / {LABEL_NAMES.get(b, b)}): "
                  f"{ab['n']} of {ab['of']} {a} sentences labelled {b}, "
                  f"{ba['n']} of {ba['of']} {b} sentences labelled {a}."]
        lines += _example_lines(ab["examples"] + ba["examples"])
    return lines + [""]


def _example_lines(examples: Sequence[Mapping[str, Any]]) -> list[str]:
    return [f"  - \"{e['text']}\" (gold {'/'.join(e['gold'])}, predicted {e['pred']} "
            f"at {e['score']:.2f}; {e.get('corpus') or ''} {e.get('paper') or ''})"
            for e in examples]


def _settings_section(meta: Mapping[str, Any], config: Mapping[str, Any]) -> list[str]:
    sec = meta.get("secondary") or {}
    lines = ["## Settings", "",
             f"- features: {', '.join(config.get('features', []))}",
             f"- primary label: linear-chain CRF, c1 {meta.get('c1')} / c2 {meta.get('c2')}, "
             f"decoding `{config.get('decode', '?')}`"
             + (", stacked second CRF" if config.get("stack") else "")
             + (f", domain copies {', '.join(meta.get('domains') or [])}"
                if meta.get("domains") else ""),
             f"- labels: {', '.join(meta.get('labels', []))}"]
    if sec:
        lines.append(f"- secondary labels: one-vs-rest layer trained on {sec.get('n_papers')} "
                     "multi-label papers; a 2nd label when its raw probability reaches "
                     f"{_threshold(sec.get('threshold2'))}, a 3rd at "
                     f"{_threshold(sec.get('threshold3'))}")
    else:
        lines.append("- secondary labels: none (no multi-label training papers)")
    enc = meta.get("encoder")
    if enc:
        st = enc.get("settings", {})
        lines.append(f"- sentence encoder: {st.get('base')} (Apache-2.0), first {st.get('layers')} "
                     f"layers, top {st.get('train_layers') or 'all'} fine-tuned for "
                     f"{st.get('epochs')} epochs on {enc.get('n_train_sentences')} sentences "
                     f"(context: {st.get('context')}); its label probabilities are CRF "
                     "features; runs as ONNX (`encoder.onnx`)")
    return lines + [""]


def _rebuild_section(meta: Mapping[str, Any], evaluation: Mapping[str, Any] | None) -> list[str]:
    command = meta.get("command") or meta.get("trained_by")
    lines = ["## Rebuild", "",
             f"Trained by: `{command}`" if command else "Training command: not recorded."]
    if evaluation and evaluation.get("command"):
        lines.append(f"Held-out evaluation: `{evaluation['command']}`")
    if uses_art(meta):
        lines += ["", "Without the ART corpus (no CC BY-NC data): "
                  "`coresc train ../shared/data/cra-corpus -o cra-model/` (or `python "
                  "experiments/train_default_model.py --without-art --out cra-model/`), then "
                  "`coresc annotate --model cra-model/ ...`."]
    return lines + [""]


def _run_id(run: Mapping[str, Any]) -> str:
    return f" (`{run['run_id'][:8]}`)" if run.get("run_id") else ""


def _threshold(t: float | None) -> str:
    return "-" if t is None else ("never (threshold above 1)" if t > 1 else f"{t:.2f}")


def _num(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f}"


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.1f}%"
