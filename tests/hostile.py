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
