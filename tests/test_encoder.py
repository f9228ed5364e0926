"""The sentence encoder under the CRF, on a tiny invented checkpoint (seconds, CPU).

The checkpoint is made here: a 2-layer BERT of width 32 with a WordPiece vocabulary of
the invented papers' words, saved the way Hugging Face saves one (``config.json``,
``model.safetensors``, ``tokenizer.json``). No real model is fine-tuned.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys

import numpy as np
import pytest
from helpers import TEMPLATES, WORDS, labelled_paper, need

from coresc.errors import CorescError
from coresc.model import CoreSCClassifier, ModelError
from coresc.model.encoder import EncoderSettings

# The test extra leaves torch out (GBs); CONTRIBUTING.md says how to add a CPU-only build.
# Skipped without it, except in CI, which installs the train extra.
_NO_TRAIN = ("fine-tuning needs the train extra (torch, safetensors, onnx): "
             "pip install torch --index-url https://download.pytorch.org/whl/cpu "
             "&& pip install '.[test,train]'")
torch = need("torch", _NO_TRAIN)
need("safetensors", _NO_TRAIN)
need("onnx", _NO_TRAIN)
need("onnxruntime")
# A tiny network gains nothing from threads, and on a busy 2-core machine torch's thread
# pool spins against other processes (a backward pass went from ~5 ms to 137 ms).
torch.set_num_threads(1)

from coresc.model.finetune import cache, oof, train  # noqa: E402
from coresc.model.finetune.bert import BertConfig, BertEncoder  # noqa: E402

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def _vocab() -> dict[str, int]:
    import re

    words = set(SPECIALS)
    for text in [t for ts in TEMPLATES.values() for t in ts] + WORDS + [
            "introduction", "methods", "results", "acknowledgements", "we", "thank", "the",
            "funders", "abstract", "title"]:
        words.update(re.findall(r"\w+|[^\w\s]", text.lower()))
    return {w: i for i, w in enumerate(SPECIALS + sorted(words - set(SPECIALS)))}


@pytest.fixture(scope="module")
def tiny_base(tmp_path_factory) -> str:
    """A tiny BERT checkpoint directory."""
    from safetensors.torch import save_file
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    d = tmp_path_factory.mktemp("tiny-bert")
    vocab = _vocab()
    tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.BertProcessing(("[SEP]", vocab["[SEP]"]),
                                                   ("[CLS]", vocab["[CLS]"]))
    tok.save(str(d / "tokenizer.json"))
    config = {"vocab_size": len(vocab), "hidden_size": 32, "num_hidden_layers": 2,
              "num_attention_heads": 2, "intermediate_size": 64,
              "max_position_embeddings": 64, "type_vocab_size": 2}
    (d / "config.json").write_text(json.dumps(config))
    torch.manual_seed(0)
    net = BertEncoder(BertConfig.from_dict(config))
    save_file({k: v.contiguous() for k, v in net.state_dict().items()},
              str(d / "model.safetensors"))
    return str(d)


@pytest.fixture()
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("CORESC_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture(scope="module")
def papers():
    rng = random.Random(3)
    return [labelled_paper(i, rng) for i in range(6)]


def settings(base: str, **kw) -> dict:
    return {"base": base, "layers": 2, "epochs": 3.0, "batch_size": 8, "lr": 1e-3,
            "head_lr": 1e-2, **kw}


def fit(papers, base, **kw):
    return CoreSCClassifier(features=("location", "ngrams"), c1=0.01, c2=0.01,
                            max_iterations=30, secondary=False, decode="posterior",
                            encoder=settings(base, **kw), verbose=False).fit(papers)


# ---------------------------------------------------------------- plain functions


def test_missing_base_is_one_line(papers):
    with pytest.raises(CorescError, match="base encoder not found"):
        fit(papers, "/nonexistent/checkpoint")


# ---------------------------------------------------------------- fine-tuning


def test_out_of_fold_probabilities_never_come_from_an_encoder_trained_on_the_paper(
        papers, tiny_base, cache_dir, monkeypatch):
    trained_on, predicted = [], []
    real_examples, real_predict = oof._examples, oof.predict

    def spy_examples(encoded, labels, which, index):
        trained_on.append(set(which))
        return real_examples(encoded, labels, which, index)

    def spy_predict(base, s, labels, key, state, flat, device="cpu"):
        predicted.append((key, len(flat)))
        return real_predict(base, s, labels, key, state, flat, device)

    monkeypatch.setattr(oof, "_examples", spy_examples)
    monkeypatch.setattr(oof, "predict", spy_predict)
    model = fit(papers, tiny_base)
    # two inner encoders, then the final one on every paper
    assert len(trained_on) == 3 and trained_on[2] == set(range(len(papers)))
    held_out = [set(range(len(papers))) - t for t in trained_on[:2]]
    assert held_out[0] and held_out[1] and not held_out[0] & held_out[1]
    assert held_out[0] | held_out[1] == set(range(len(papers)))
    # each inner encoder predicted exactly the sentences of the papers it did not see
    sizes = [sum(len(papers[i]) for i in h) for h in held_out]
    assert [n for _, n in predicted] == sizes
    assert model.meta_["encoder"]["n_train_sentences"] == sum(
        1 for p in papers for s in p.sentences() if s.gold)


def test_encoder_learns_the_invented_labels(papers, tiny_base, cache_dir):
    model = fit(papers, tiny_base, epochs=30.0)
    probs = np.vstack([model._encoder_probs(p) for p in papers])
    gold = [s.gold_codes[0] if s.gold else None for p in papers for s in p.sentences()]
    labels = model._encoder.labels
    right = [labels[int(np.argmax(r))] == g for r, g in zip(probs, gold, strict=True) if g]
    assert np.mean(right) > 0.8
    assert np.allclose(probs.sum(axis=1), 1.0, atol=1e-4)


@pytest.fixture
def fresh_builds(monkeypatch) -> list[bool]:
    """From now on, one True per network built to be fine-tuned (not from weights)."""
    builds: list[bool] = []
    real_build = train.build

    def spy_build(base, s, n_labels, state=None):
        builds.append(state is None)
        return real_build(base, s, n_labels, state)

    monkeypatch.setattr(train, "build", spy_build)
    return builds


def test_second_fit_reuses_the_cache(papers, tiny_base, cache_dir, request):
    first = fit(papers, tiny_base)
    builds = request.getfixturevalue("fresh_builds")
    second = fit(papers, tiny_base)
    assert not any(builds), "an encoder was fine-tuned again"
    assert second.predict(papers[:2]) == first.predict(papers[:2])
    assert any(cache_dir.rglob("weights.safetensors"))


def test_feature_scale_changes_the_crf_not_the_encoder(papers, tiny_base, cache_dir,
                                                        request):
    first = fit(papers, tiny_base)
    builds = request.getfixturevalue("fresh_builds")
    scaled = fit(papers, tiny_base, feature_scale=5.0)
    assert not any(builds), "a CRF-side setting fine-tuned the encoder again"
    assert scaled.meta_["encoder"]["train_key"] == first.meta_["encoder"]["train_key"]
    x1 = first.featurize(papers[:1])[0][0]
    x5 = scaled.featurize(papers[:1])[0][0]
    enc = [k for k in x1 if k.startswith("enc=")]
    assert enc and all(x5[k] == pytest.approx(5 * x1[k], rel=1e-5) for k in enc)


def test_frozen_lower_layers_train_only_the_top(papers, tiny_base, cache_dir):
    from safetensors.torch import load

    from coresc.model.finetune.base import read_base

    model = fit(papers, tiny_base, train_layers=1)
    key = model.meta_["encoder"]["train_key"]
    state = load(cache.load_bytes(key, "weights.safetensors"))
    base = load(read_base(tiny_base).weights)
    for name in ("embeddings.word_embeddings.weight", "encoder.layer.0.output.dense.weight"):
        assert torch.equal(state["bert." + name], base[name])
    assert not torch.equal(state["bert.encoder.layer.1.output.dense.weight"],
                           base["encoder.layer.1.output.dense.weight"])


# ---------------------------------------------------------------- the model directory


def test_saved_model_predicts_the_same_and_needs_no_torch(papers, tiny_base, cache_dir,
                                                          tmp_path):
    model = fit(papers, tiny_base)
    d = model.save(tmp_path / "m")
    assert {"encoder.onnx", "tokenizer.json", "encoder.json"} <= {p.name for p in d.iterdir()}
    card = (d / "MODEL_CARD.md").read_text(encoding="utf-8")
    assert "- sentence encoder: " in card and "first 2 layers" in card
    loaded = CoreSCClassifier.load(d)
    assert loaded.predict(papers) == model.predict(papers)
    code = (
        "import sys, json\n"
        "sys.modules['torch'] = None\n"
        "from coresc.model import CoreSCClassifier\n"
        "from coresc.readers import read_file\n"
        f"m = CoreSCClassifier.load({str(d)!r})\n"
        "assert 'torch' not in [k for k, v in sys.modules.items() if v is not None]\n"
        "print(m._encoder.labels)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.replace("'", '"')) == model._encoder.labels


def test_onnx_matches_torch(papers, tiny_base, cache_dir):
    from safetensors.torch import load

    from coresc.model.encoder import paper_units, scatter
    from coresc.model.finetune.base import read_base

    model = fit(papers, tiny_base)
    s = EncoderSettings.from_dict(model.encoder)
    base = read_base(tiny_base)
    key = model.meta_["encoder"]["train_key"]
    state = load(cache.load_bytes(key, "weights.safetensors"))
    units, where = paper_units(oof.tokenizer_for(base, s), papers[0], s)
    ref = scatter(train.predict(base, s, model._encoder.labels, key, state, units), where,
                  len(papers[0].sentences()))
    onnx = model._encoder_probs(papers[0])
    assert np.abs(ref - onnx).max() < 2e-3


def test_missing_encoder_file_is_a_model_error(papers, tiny_base, cache_dir, tmp_path):
    d = fit(papers, tiny_base).save(tmp_path / "m")
    (d / "encoder.onnx").unlink()
    with pytest.raises(ModelError, match="encoder.onnx: missing"):
        CoreSCClassifier.load(d)


def test_crf_only_model_drops_stale_encoder_files(papers, tiny_base, cache_dir, tmp_path):
    d = fit(papers, tiny_base).save(tmp_path / "m")
    CoreSCClassifier(features=("ngrams",), c1=0.1, c2=0.1, max_iterations=10,
                     secondary=False, decode="viterbi", verbose=False).fit(papers).save(d)
    assert not (d / "encoder.onnx").exists()
    assert CoreSCClassifier.load(d).encoder is None


def test_compact_storage_keeps_the_graph_and_its_numbers():
    """export.compact, the storage of the shipped encoder (the tiny one here has no weight
    big enough to reach it): a word-piece table of 10,000 rows kept as int8 with a scale
    per row, a large matrix as float16, a small bias as it was; onnxruntime computes
    what those stored weights give, close to the float32 graph, from a smaller file."""
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    from coresc.model.finetune.export import compact

    rng = np.random.default_rng(0)
    table = rng.normal(size=(10_000, 32)).astype(np.float32)
    table[5] = 0.0  # a row of zeros: its scale must not divide by zero
    weight = rng.normal(size=(32, 128)).astype(np.float32)  # 4,096 values: the threshold
    bias = rng.normal(size=128).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Gather", ["table", "ids"], ["rows"]),
         helper.make_node("MatMul", ["rows", "weight"], ["mm"]),
         helper.make_node("Add", ["mm", "bias"], ["out"])], "g",
        [helper.make_tensor_value_info("ids", TensorProto.INT64, [None])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [None, 128])],
        [numpy_helper.from_array(x, n) for x, n in ((table, "table"), (weight, "weight"),
                                                     (bias, "bias"))])
    plain = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    plain.ir_version = 8
    data = plain.SerializeToString()
    small = compact(data)

    stored = {i.name: numpy_helper.to_array(i)
              for i in onnx.load_from_string(small).graph.initializer}
    assert {n: a.dtype for n, a in stored.items()} == {
        "table.int8": np.int8, "table.scale": np.float32, "weight.fp16": np.float16,
        "bias": np.float32}
    scale = np.abs(table).max(axis=1) / 127.0
    scale[5] = 1.0
    assert np.array_equal(stored["table.scale"], scale.astype(np.float32))
    assert np.array_equal(stored["table.int8"], np.round(table / scale[:, None]))
    assert len(small) < len(data) / 3

    ids = np.array([0, 5, 9_999, 1234], dtype=np.int64)

    def run(model: bytes) -> np.ndarray:
        sess = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
        return sess.run(None, {"ids": ids})[0]

    full, kept = run(data), run(small)
    table_kept = stored["table.int8"].astype(np.float32) * stored["table.scale"][:, None]
    expected = table_kept[ids] @ stored["weight.fp16"].astype(np.float32) + bias
    assert np.allclose(kept, expected, rtol=1e-5, atol=1e-5)
    assert np.allclose(kept, full, atol=0.1) and not np.array_equal(kept, full)


# ---------------------------------------------------------------- windows of sentences

WINDOW = {"context": "window", "window_tokens": 48, "sentence_tokens": 16}


@pytest.fixture(scope="module")
def tiny_tokenizer(tiny_base):
    from coresc.model.finetune.base import read_base

    return oof.tokenizer_for(read_base(tiny_base), EncoderSettings(**WINDOW))


@pytest.mark.parametrize("overlap", [0, 1, 2])
def test_windows_score_every_sentence_once_within_their_budget(papers, tiny_tokenizer,
                                                               overlap):
    from coresc.model.encoder import paper_units

    s = EncoderSettings(**WINDOW, overlap=overlap)
    sep = tiny_tokenizer.token_to_id("[SEP]")
    for paper in papers:
        units, where = paper_units(tiny_tokenizer, paper, s)
        assert sorted(i for w in where for i in w) == list(range(len(paper.sentences())))
        assert any(len(w) > 1 for w in where), "no window holds two sentences"
        for (ids, types, spans), idx in zip(units, where, strict=True):
            assert len(ids) == len(types) <= s.window_tokens and len(spans) == len(idx)
            assert ids[0] == tiny_tokenizer.token_to_id("[CLS]")
            for a, b in spans:  # a sentence's pieces, then its separator
                assert 0 < a < b < len(ids) and ids[b] == sep and types[a] == 1
            assert [a for a, _ in spans] == sorted(a for a, _ in spans)


def test_windows_read_the_heading_once_and_the_sentence_before_as_context(
        papers, tiny_tokenizer):
    from coresc.model.encoder import paper_units

    paper = papers[0]
    s = EncoderSettings(**{**WINDOW, "window_tokens": 40}, overlap=1)
    units, where = paper_units(tiny_tokenizer, paper, s)
    heading = tiny_tokenizer.encode("Introduction", add_special_tokens=False).ids
    first = units[0][0]
    assert first[1:1 + len(heading)] == heading and units[0][1][1] == 0
    # a later window of the same section starts with the last sentence of the one before
    j = next(k for k in range(1, len(units)) if where[k][0] == where[k - 1][-1] + 1
             and paper.sentences()[where[k][0]].text and k > 0)
    prev = tiny_tokenizer.encode(paper.sentences()[where[j][0] - 1].text,
                                 add_special_tokens=False).ids[:s.sentence_tokens]
    start = units[j][0].index(tiny_tokenizer.token_to_id("[SEP]")) + 1
    if units[j][0][1:1 + len(heading)] == heading:
        assert units[j][0][start:start + len(prev)] == prev
        assert units[j][2][0][0] == start + len(prev) + 1


def test_one_sentence_units_pool_like_the_whole_input(papers, tiny_tokenizer):
    from coresc.model.encoder import paper_units

    units, where = paper_units(tiny_tokenizer, papers[1], EncoderSettings(context="heading"))
    assert where == [[i] for i in range(len(papers[1].sentences()))]
    assert all(spans == [(0, len(ids))] for ids, _, spans in units)


def test_window_encoder_learns_and_onnx_matches_torch(papers, tiny_base, cache_dir,
                                                      tmp_path):
    from safetensors.torch import load

    from coresc.model.encoder import paper_units, scatter
    from coresc.model.finetune.base import read_base

    model = fit(papers, tiny_base, epochs=30.0, **WINDOW)
    probs = np.vstack([model._encoder_probs(p) for p in papers])
    gold = [s.gold_codes[0] if s.gold else None for p in papers for s in p.sentences()]
    labels = model._encoder.labels
    right = [labels[int(np.argmax(r))] == g for r, g in zip(probs, gold, strict=True) if g]
    assert np.mean(right) > 0.8
    s = EncoderSettings.from_dict(model.encoder)
    key = model.meta_["encoder"]["train_key"]
    state = load(cache.load_bytes(key, "weights.safetensors"))
    units, where = paper_units(oof.tokenizer_for(read_base(tiny_base), s), papers[0], s)
    ref = scatter(train.predict(read_base(tiny_base), s, labels, key, state, units), where,
                  len(papers[0].sentences()))
    assert np.abs(ref - model._encoder_probs(papers[0])).max() < 2e-3
    loaded = CoreSCClassifier.load(model.save(tmp_path / "m"))
    assert loaded.predict(papers) == model.predict(papers)


def test_window_longer_than_the_base_reads_is_refused(papers, tiny_base, cache_dir):
    with pytest.raises(CorescError, match="window_tokens"):
        fit(papers, tiny_base, context="window", window_tokens=128, sentence_tokens=16)


def test_an_int8_encoder_trains_its_crf_on_the_int8_probabilities(papers, tiny_base,
                                                                  cache_dir, monkeypatch):
    """Issue 41: with ``quantize`` the out-of-fold probabilities the CRF learns from come
    from the exported int8 graph (weights with a scale per output channel), each unit
    run alone, which is what the shipped encoder gives; not from torch's float32."""
    import onnx
    from onnx import numpy_helper

    from coresc.model.encoder import OnnxEncoder

    used = []
    real = OnnxEncoder.predict_units

    def spy(self, units):
        used.append((self.settings.quantize, len(units)))
        return real(self, units)

    monkeypatch.setattr(OnnxEncoder, "predict_units", spy)
    monkeypatch.setattr(oof, "predict", lambda *a, **k: pytest.fail("float32 predictions"))
    model = fit(papers, tiny_base, quantize=True)
    # the two inner encoders' int8 graphs read the papers each did not see
    assert [q for q, _ in used] == [True, True]
    assert sum(n for _, n in used) == sum(len(oof.paper_units(
        model._encoder.tokenizer, p, model._encoder.settings)[0]) for p in papers)
    graph = onnx.load_from_string(model._encoder_fitted.onnx).graph
    ops = {n.op_type for n in graph.node}
    assert "MatMulInteger" in ops
    # attention fused; residual + layer norm and the GELU's bias apart (encoder.UNFUSED)
    assert "QAttention" in ops and "LayerNormalization" in ops
    assert not ops & {"SkipLayerNormalization", "BiasGelu"}
    scales = [numpy_helper.to_array(i) for i in graph.initializer
              if i.name.endswith("_scale")]
    assert scales and max(s.size for s in scales) > 1  # a scale per channel
