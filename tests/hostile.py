"""A generated corpus of hostile inputs: what a careless or malicious user may feed coresc.

``make_corpus(folder, seed, n_mutants)`` writes, from the small fixtures of every
dialect: truncated and byte-flipped copies, other encodings (UTF-16, UTF-32, a real
ISO-8859-1 file, declarations that lie), byte-order marks, entity tricks, deep nesting,
sentences inside sentences, text XML cannot hold, odd JSONL, and special files (a FIFO,
dangling and looping links, two links pointing at each other). Each file is an input
that coresc must either read or refuse with one line, never crash on.
Used by tests/test_robustness.py (a small corpus) and benchmarks/fuzz.py (a large one).
"""

from __future__ import annotations

import json
import os
import random
from functools import lru_cache
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures"
#: One small file of every dialect the readers know.
DIALECTS = ("io_art_small.xml", "io_mode2_small.xml", "io_jats_small.xml",
            "elsevier_small.xml", "tei_grobid_small.xml", "io_text_small.txt",
            "io_jsonl_small.jsonl")

SENTENCES = "We measured the rate. It was larger than expected. This suggests a new model."


def _fixed(folder: Path) -> dict[str, bytes]:
    """Hand-made hostile files (name -> bytes)."""
    para = f"<P><s sid='1'>{SENTENCES}</s></P>"
    mode2 = f"<PAPER><TITLE>A title</TITLE><BODY><DIV>{para}</DIV></BODY></PAPER>"
    return {
        "utf16.xml": ("<?xml version='1.0' encoding='UTF-16'?>" + mode2).encode("utf-16"),
        "utf16_nobom.xml": ("<?xml version='1.0' encoding='UTF-16'?>"
                            + mode2).encode("utf-16-le"),
        "latin1_declared.xml": ("<?xml version='1.0' encoding='ISO-8859-1'?>"
                                + mode2.replace("rate", "taux à 5 °C")).encode("latin-1"),
        "latin1_lie.xml": ("<?xml version='1.0' encoding='ISO-8859-1'?>"
                           + mode2.replace("rate", "taux à 5 °C")).encode("utf-8"),
        "utf16_lie.xml": ("<?xml version='1.0' encoding='UTF-16'?>" + mode2).encode(),
        "unknown_encoding.xml": ("<?xml version='1.0' encoding='x-nope'?>" + mode2).encode(),
        "double_bom.xml": b"\xef\xbb\xbf\xef\xbb\xbf" + mode2.encode(),
        "double_bom_text.txt": b"\xef\xbb\xbf\xef\xbb\xbf" + SENTENCES.encode(),
        "bom_only.txt": b"\xef\xbb\xbf",
        "empty_s.xml": mode2.replace(para, para + "<P><s sid='2'></s><s sid='3'> </s></P>")
                            .encode(),
        "only_empty_s.xml": b"<PAPER><BODY><DIV><P><s sid='1'/></P></DIV></BODY></PAPER>",
        "controls.txt": (b"A title\n\nWe saw \x01\x02 a form\x0cfeed. It was \x1b[1m bold."
                         ) + b"\x00" * 3 + b" after NUL." + b" pad" * 3000,
        "nul_deep.txt": SENTENCES.encode() * 400 + b"\x00 tail sentence here.",
        "nonchars.txt": "We saw \ufffe and \uffff here. It ended.".encode(),
        "entity_bomb.xml": (b"<?xml version='1.0'?><!DOCTYPE l [<!ENTITY a 'aaaaaaaaaa'>"
                            b"<!ENTITY b '&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;'>]><PAPER><s>&b;</s>"
                            b"</PAPER>"),
        "xxe.xml": (b"<?xml version='1.0'?><!DOCTYPE r [<!ENTITY x SYSTEM 'file:///etc/passwd'>]>"
                    b"<PAPER><s>&x;</s></PAPER>"),
        "deep.xml": b"<PAPER>" + b"<DIV>" * 5000 + b"<s>Deep.</s>" + b"</DIV>" * 5000
                    + b"</PAPER>",
        "deep_unclosed.xml": b"<a>" * 100000,
        "dots.txt": ("Start" + "." * 20000 + " Then" + "!" * 20000 + " End?" * 3).encode(),
        "one_sentence.txt": ("word " * 30000).encode(),
        "cjk.txt": "我们测量了速率。结果比预期大！这是新的吗？".encode(),
        "binary.txt": bytes(range(256)) * 4,
        "surrogates.jsonl": (json.dumps({"sentences": ["We saw \ud800 here.", "\udfff",
                                                       "\u0000 Null start."]}) + "\n").encode(),
        "empty_sentences.jsonl": (json.dumps({"sentences": ["", "  ", "Real one here."]})
                                  + "\n").encode(),
        "only_empty.jsonl": (json.dumps({"sentences": ["", ""]}) + "\n").encode(),
        "not_object.jsonl": b"[1, 2, 3]\n",
        "deep.jsonl": b"[" * 100000 + b"]" * 100000 + b"\n",
        "bad_types.jsonl": b'{"sentences": [1, null, {"a": 2}]}\n',
        "labels_mismatch.jsonl": b'{"sentences": ["A.", "B."], "labels": ["Res"]}\n',
        "huge_number.jsonl": b'{"sentences": ["A b c."], "id": 1e999}\n',
        "records_bad_pred.jsonl": b'{"paper": "p", "text": "A b.", "gold": [], '
                                  b'"pred": [{"label": "Res"}]}\n',
        "long_id.jsonl": (json.dumps({"id": "x/" * 300, "sentences": [SENTENCES]})
                          + "\n").encode(),
        "crlf.txt": SENTENCES.replace(". ", ".\r\n").encode(),
        # issue 32: UTF-32 (its LE mark starts like UTF-16's), sentences inside sentences
        "utf32_le.txt": SENTENCES.encode("utf-32-le").join([b"\xff\xfe\x00\x00", b""]),
        "utf32_be.xml": b"\x00\x00\xfe\xff" + ("<?xml version='1.0' encoding='UTF-32'?>"
                                                + mode2).encode("utf-32-be"),
        "utf32.jsonl": (json.dumps({"id": "u32", "sentences": [SENTENCES]})
                        + "\n").encode("utf-32"),
        "nested_s.xml": mode2.replace(para, "<P><s sid='1'>A <s sid='2'>B.</s> C.</s></P>")
                             .encode(),
        "pdf_named.pdf": b"not a pdf at all",
        "tei_formulas.xml": (b"<TEI xmlns='http://www.tei-c.org/ns/1.0'><text><body><div>"
                             b"<p><formula>x = 1</formula></p></div></body></text></TEI>"),
    }


def _mutants(data: bytes, rng: random.Random, n: int) -> list[tuple[str, bytes]]:
    """Truncated and byte-flipped copies of ``data``."""
    out = []
    for i in range(n):
        cut = rng.randrange(1, len(data))
        out.append((f"cut{i}", data[:cut]))
        flipped = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            flipped[rng.randrange(len(flipped))] = rng.randrange(256)
        out.append((f"flip{i}", bytes(flipped)))
    return out


def make_corpus(folder: str | Path, seed: int = 0, n_mutants: int = 2,
                special: bool = True, dialects: tuple[str, ...] = DIALECTS) -> list[Path]:
    """Write the hostile corpus into ``folder``; return the regular files written.

    ``special`` adds a FIFO, a dangling link, two links pointing at each other and a
    link looping back to ``folder`` (reported by a directory walk, never read).
    ``dialects``: the fixtures mutated (the mutants of one JSONL file keep its papers'
    ids, which one output folder refuses).
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    written = []
    for name, data in _fixed(folder).items():
        (folder / name).write_bytes(data)
        written.append(folder / name)
    for fixture in dialects:
        data = (FIXTURES / fixture).read_bytes()
        stem, suffix = fixture.rsplit(".", 1)
        for tag, mutant in _mutants(data, rng, n_mutants):
            path = folder / f"{stem}_{tag}.{suffix}"
            path.write_bytes(mutant)
            written.append(path)
    if special and hasattr(os, "mkfifo"):
        os.mkfifo(folder / "fifo.xml")
        (folder / "dangling.xml").symlink_to(folder / "missing-target.xml")
        (folder / "loop").symlink_to(folder)
        (folder / "link_a.xml").symlink_to(folder / "link_b.xml")  # a loop of two links
        (folder / "link_b.xml").symlink_to(folder / "link_a.xml")
    return written


#: Output targets every verb must refuse before any work (issue 37), as (name, why);
#: ``{in}`` is an input file, ``{dir}`` the input's folder, ``{file}`` another existing
#: file, ``{tmp}`` a scratch folder (see tests/test_output_rule.py).
HOSTILE_OUTPUTS = (("", "empty"), (" ", "blank"), ("\t", "blank"),
                   ("/proc/x", "inside /proc"), ("/proc/self/fd/1", "inside /proc"),
                   ("/sys/kernel/x", "inside /sys"), ("{file}/sub", "under a file"),
                   ("{tmp}/loop/x", "a loop of links"), ("{in}", "an input"),
                   ("{tmp}/link", "a symbolic link to an input"),
                   ("{tmp}/hard", "a hard link to an input"),
                   ("{dir}/q.txt", "a file inside an input folder"))


def damaged_models(source: str | Path, folder: str | Path, seed: int = 0) -> dict[str, Path]:
    """Copies of the model directory ``source`` in ``folder``, each with one file damaged
    (issue 37: ``truncate -s 1000000 crf.crfsuite`` crashed crfsuite): name -> copy."""
    import shutil

    source, folder = Path(source), Path(folder)
    rng = random.Random(seed)
    damages = {"crf_cut": ("crf.crfsuite", lambda b: b[:1_000_000]),
               "crf_header": ("crf.crfsuite", lambda b: b[:4] + b"\xff\xff" + b[6:]),
               "crf_flip": ("crf.crfsuite", lambda b: _flip(b, rng)),
               "ovr_cut": ("ovr.npz", lambda b: b[:len(b) // 10]),
               "ovr_flip": ("ovr.npz", lambda b: _flip(b, rng)),
               "config_flip": ("config.json", lambda b: _flip(b, rng))}
    out = {}
    for name, (file, spoil) in damages.items():
        if not (source / file).is_file():
            continue
        copy = folder / name
        shutil.copytree(source, copy)
        (copy / file).write_bytes(spoil((copy / file).read_bytes()))
        out[name] = copy
    return out


def rerecord(model_dir: str | Path) -> None:
    """Update the size and SHA-256 records in ``meta.json`` to the files as they are now,
    as a hand that edits a model file and its record alike would (issue 42)."""
    from coresc.model.integrity import FILES_KEY, record

    d = Path(model_dir)
    meta = json.loads((d / "meta.json").read_text())
    meta[FILES_KEY] = {name: record((d / name).read_bytes()) for name in meta[FILES_KEY]
                       if (d / name).exists()}
    (d / "meta.json").write_text(json.dumps(meta))


def _edit_meta(change):
    """A damage that rewrites meta.json: ``change(meta)`` edits the parsed object (or
    returns the new text)."""
    def damage(d: Path) -> None:
        meta = json.loads((d / "meta.json").read_text())
        text = change(meta)
        (d / "meta.json").write_text(text if isinstance(text, str) else json.dumps(meta))
    return damage


def _set(path: str, value):
    """An edit of meta.json setting the key ``a.b.c`` to ``value``."""
    def change(meta):
        *parents, last = path.split(".")
        for key in parents:
            meta = meta[key]
        meta[last] = value
    return _edit_meta(change)


def _spoil_crf(where: str):
    """crfsuite offsets or ids pointing outside what exists (the records updated):
    crfsuite follows them unchecked, which crashed the process (exit 139)."""
    import struct

    def damage(d: Path) -> None:
        path = d / "crf.crfsuite"
        data = bytearray(path.read_bytes())
        header = struct.unpack_from("<4sI4s9I", data)
        if where == "label lists":  # each label's list of transition features
            for i in range(header[5]):
                struct.pack_into("<I", data, header[10] + 12 + 4 * i, 0xFFFFFF00)
        elif where == "feature labels":  # the label each feature scores
            n = struct.unpack_from("<I", data, header[7] + 8)[0]
            for i in range(n):
                struct.pack_into("<I", data, header[7] + 12 + 20 * i + 8, 10 ** 9)
        elif where == "label names":  # where each label's name is
            back = struct.unpack_from("<I", data, header[8] + 20)[0]
            for i in range(header[5]):
                struct.pack_into("<I", data, header[8] + back + 4 * i, 0xFFFFFF00)
        else:  # a weight that is not a number
            struct.pack_into("<d", data, header[7] + 12 + 20 * 5 + 12, float("nan"))
        path.write_bytes(bytes(data))
        rerecord(d)
    return damage


def _nan_weights(d: Path) -> None:
    import io

    import numpy as np

    with np.load(d / "ovr.npz") as z:
        coef, intercept = z["coef"].copy(), z["intercept"]
    coef[0, 0] = np.nan
    buffer = io.BytesIO()
    np.savez_compressed(buffer, coef=coef, intercept=intercept)
    (d / "ovr.npz").write_bytes(buffer.getvalue())
    rerecord(d)


def _edit_calibration(change):
    """A damage that edits calibration.json (``change(parsed)``) and its record."""
    def damage(d: Path) -> None:
        calibration = json.loads((d / "calibration.json").read_text())
        change(calibration)
        (d / "calibration.json").write_text(json.dumps(calibration))
        rerecord(d)
    return damage


def _link_to_copy(name: str):
    """A model file replaced by a symbolic link to a copy of itself outside the folder."""
    def damage(d: Path) -> None:
        outside = d.parent / f"{d.name}-{name}"
        outside.write_bytes((d / name).read_bytes())
        (d / name).unlink()
        (d / name).symlink_to(outside)
    return damage


def _without_records(change):
    """A damage with the ``files`` records removed from meta.json first."""
    def damage(d: Path) -> None:
        _edit_meta(lambda meta: meta.pop("files"))(d)
        change(d)
    return damage


def _deep(meta) -> str:
    return json.dumps(meta)[:-1] + ', "x": ' + "[" * 100_000 + "]" * 100_000 + "}"


def _two_hundred_bytes(d: Path) -> None:
    path = d / "crf.crfsuite"
    path.write_bytes(_flip_many(path.read_bytes(), random.Random(42), 200))


#: Hostile edits of a model folder (issue 42, items 13 and 16-19): name -> damage.
#: Each must make loading the folder fail with one line naming it: never a traceback, a
#: crash, or a model loaded without a part or with numbers that are not numbers.
HOSTILE_MODEL_EDITS = {
    "ovr.npz deleted": lambda d: (d / "ovr.npz").unlink(),
    "calibration.json deleted": lambda d: (d / "calibration.json").unlink(),
    "ovr.npz's record deleted": _edit_meta(lambda m: m["files"].pop("ovr.npz")),
    "ovr.npz and its record deleted": lambda d: (
        _edit_meta(lambda m: m["files"].pop("ovr.npz"))(d), (d / "ovr.npz").unlink()),
    "an unrecorded calibration.json": _edit_meta(
        lambda m: m["files"].pop("calibration.json")),
    "no file records": _edit_meta(lambda meta: meta.pop("files")),
    "200 changed bytes, no records": _without_records(_two_hundred_bytes),
    "a record outside the folder": _edit_meta(
        lambda m: m["files"].update({"../meta.json": m["files"]["config.json"]})),
    "a record of 1e15 bytes": _edit_meta(
        lambda m: m["files"]["ovr.npz"].update({"size": 10 ** 15})),
    "crf label lists outside": _spoil_crf("label lists"),
    "crf feature labels past the last": _spoil_crf("feature labels"),
    "crf label names outside": _spoil_crf("label names"),
    "crf weight NaN": _spoil_crf("weight"),
    "ovr weight NaN": _nan_weights,
    "crf.crfsuite a link": _link_to_copy("crf.crfsuite"),
    "config.json a link": _link_to_copy("config.json"),
    "meta.json a link": _link_to_copy("meta.json"),
    "meta.json nested 100,000 deep": _edit_meta(_deep),
    "meta.json not an object": _edit_meta(lambda meta: "[1, 2]"),
    "domain_bias a list": _set("domain_bias", [1]),
    "domain_bias of an unknown domain": _set("domain_bias", {"x": {"Res": 1.0}}),
    "training_data.papers holding lists": _set("training_data.papers", [[1, 2]]),
    "training_data.corpora a number": _set("training_data.corpora", 5),
    "calibration a string": _set("calibration", "x"),
    "labels twice": _set("labels", ["Res", "Res"]),
    "format a string": _set("format", "1"),
    "label_bias NaN": _set("label_bias.Hyp", float("nan")),
    "label_bias Infinity": _set("label_bias.Hyp", float("inf")),
    "label_bias -Infinity": _set("label_bias.Goa", float("-inf")),
    "label_bias 1e999": _edit_meta(lambda meta: json.dumps(meta).replace(
        '"Hyp": 0.75', '"Hyp": 1e999', 1)),
    "label_bias true": _set("label_bias.Hyp", True),
    "c1 NaN": _set("c1", float("nan")),
    "calibration.json NaN": _edit_calibration(
        lambda c: c["maps"][0]["y"].__setitem__(-1, float("nan"))),
    "calibration.json stats a number": _edit_calibration(lambda c: c.update({"stats": 5})),
}


def hostile_model_folders(source: str | Path, folder: str | Path) -> dict[str, Path]:
    """Copies of the model directory ``source`` in ``folder``, one per
    :data:`HOSTILE_MODEL_EDITS` edit: name -> copy."""
    import shutil

    out = {}
    for i, (name, damage) in enumerate(HOSTILE_MODEL_EDITS.items()):
        copy = Path(folder) / f"m{i}"
        shutil.copytree(source, copy)
        damage(copy)
        out[name] = copy
    return out


def garble_crf(data: bytes, seed: int) -> bytes:
    """A random garble of crfsuite model bytes: 200 bytes anywhere (seed % 3 == 0),
    offsets and ids inside its sections (1), or a slice moved elsewhere (2)."""
    import struct

    rng = random.Random(seed)
    garbled = bytearray(data)
    if seed % 3 == 0:
        return _flip_many(data, rng, 200)
    if seed % 3 == 1:
        start = rng.choice(struct.unpack_from("<4sI4s9I", data)[7:])
        for _ in range(rng.randint(1, 20)):
            struct.pack_into("<I", garbled, start + 4 * rng.randrange(3000),
                             rng.choice([0, 2 ** 32 - 1, rng.randrange(2 ** 32),
                                         rng.randrange(len(data))]))
        return bytes(garbled)
    n = rng.randint(4, 400)
    src, dst = rng.randrange(len(data) - n), rng.randrange(len(data) - n)
    garbled[dst:dst + n] = data[src:src + n]
    return bytes(garbled)


#: :func:`tag_in_child`'s exit codes: tagged, refused by the check, a Python error.
TAGGED, REFUSED, PYTHON_ERROR = 0, 3, 5


def tag_in_child(data: bytes, x: list, labels: list[str], checked: bool = True) -> int | None:
    """Open crfsuite model bytes and tag one paper's features ``x`` in a forked child,
    after :func:`~coresc.model.crffile.check_crf` when ``checked``: the child's exit
    code (:data:`TAGGED`, :data:`REFUSED`, :data:`PYTHON_ERROR`; negative: a crash;
    None: it hung and was killed)."""
    import multiprocessing

    child = multiprocessing.get_context("fork").Process(
        target=_tag_or_exit, args=(data, x, labels, checked))
    child.start()
    child.join(120)
    if child.exitcode is None:
        child.kill()
    return child.exitcode


def _tag_or_exit(data: bytes, x: list, labels: list[str], checked: bool) -> None:
    from coresc.model.crf import crf_tag, open_tagger
    from coresc.model.crffile import check_crf
    from coresc.model.integrity import ModelError

    if checked:
        try:
            check_crf(Path("crf.crfsuite"), data, labels)
        except ModelError:
            os._exit(REFUSED)
    try:
        crf_tag(open_tagger(data), x, labels)
    except Exception:
        os._exit(PYTHON_ERROR)
    os._exit(TAGGED)


def _flip_many(data: bytes, rng: random.Random, n: int) -> bytes:
    changed = bytearray(data)
    for _ in range(n):
        changed[rng.randrange(len(changed))] = rng.randrange(256)
    return bytes(changed)


def _flip(data: bytes, rng: random.Random) -> bytes:
    flipped = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        flipped[rng.randrange(len(flipped))] ^= 1 << rng.randrange(8)
    return bytes(flipped)


@lru_cache(maxsize=1)
def accurate_encoder():
    """The bundled accurate model's sentence encoder (one thread), or a skipped test."""
    import pytest

    pytest.importorskip("onnxruntime")
    pytest.importorskip("tokenizers")
    from coresc.model import CoreSCClassifier
    from coresc.model.storage import BUNDLED_DIR

    if not (BUNDLED_DIR / "accurate" / "encoder.onnx").exists():
        pytest.skip("the bundled accurate model is not installed")
    return CoreSCClassifier.load(BUNDLED_DIR / "accurate", threads=1)._encoder
