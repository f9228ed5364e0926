"""A damaged model directory is one line naming the file, exit 2, never a native crash
(issue 37): sizes and SHA-256 of each file are recorded in meta.json at save time and
checked before crfsuite, onnxruntime or numpy's zip reader sees the bytes. Issue 42: the
records are required and every recorded file must be there; meta.json is checked against
a schema; crfsuite's offsets are checked against the file; no number is taken unless
finite; a model's files are regular files inside it; the saver follows no planted link."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hostile import HOSTILE_MODEL_EDITS

from coresc.model import CoreSCClassifier
from coresc.model.crffile import check_crf
from coresc.model.integrity import FILES_KEY, read_recorded, record, refuse_unrecorded
from coresc.model.storage import BUNDLED_DIR, RECORDED_FILES, ModelError

ROOT = Path(__file__).resolve().parent.parent
FAST = BUNDLED_DIR / "fast"


def _truncate(path: Path, fraction: float) -> None:
    data = path.read_bytes()
    path.write_bytes(data[:int(len(data) * fraction)])


def _flip(path: Path, at: float = 0.5) -> None:
    data = bytearray(path.read_bytes())
    data[int(len(data) * at)] ^= 0xFF
    path.write_bytes(bytes(data))


DAMAGES = {
    "crf-truncated": ("crf.crfsuite", lambda p: _truncate(p, 1_000_000 / 6_188_892)),
    "crf-header": ("crf.crfsuite", lambda p: _flip(p, 5 / p.stat().st_size)),
    "crf-flipped": ("crf.crfsuite", _flip),
    "ovr-truncated": ("ovr.npz", lambda p: _truncate(p, 0.1)),
    "ovr-flipped": ("ovr.npz", _flip),
    "calibration-flipped": ("calibration.json", _flip),
    "config-flipped": ("config.json", lambda p: p.write_text(
        p.read_text().replace('"max_iterations": 150', '"max_iterations": 15'))),
}


@pytest.fixture()
def model_copy(tmp_path: Path) -> Path:
    d = tmp_path / "m"
    shutil.copytree(FAST, d)
    return d


@pytest.mark.parametrize("bundled", ["fast", "accurate"])
def test_bundled_models_record_every_file_they_load(bundled: str) -> None:
    d = BUNDLED_DIR / bundled
    files = json.loads((d / "meta.json").read_text())[FILES_KEY]
    assert {"crf.crfsuite", "config.json", "ovr.npz", "ovr_vocab.json",
            "calibration.json"} <= set(files)
    if bundled == "accurate":
        assert {"encoder.onnx", "tokenizer.json", "encoder.json"} <= set(files)
    for name, rec in files.items():
        assert rec == record((d / name).read_bytes()), name


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_file_is_refused_naming_it(damage: str, model_copy: Path) -> None:
    name, spoil = DAMAGES[damage]
    spoil(model_copy / name)
    with pytest.raises(ModelError) as info:
        CoreSCClassifier.load(model_copy)
    assert str(model_copy / name) in str(info.value)
    assert "\n" not in str(info.value)


def test_a_saved_model_records_its_files_and_loads(tmp_path: Path, fixtures: Path) -> None:
    from coresc.readers import read_corpus

    papers = read_corpus([fixtures / "io_art_small.xml"])
    model = CoreSCClassifier(c1=0.1, c2=0.1, max_iterations=3, secondary=False)
    model.fit(papers)
    d = model.save(tmp_path / "m")
    files = json.loads((d / "meta.json").read_text())[FILES_KEY]
    assert set(files) >= {"crf.crfsuite", "config.json"}
    for name, rec in files.items():
        assert rec == record((d / name).read_bytes()), name
    CoreSCClassifier.load(d)  # its own records pass
    (d / "crf.crfsuite").write_bytes((d / "crf.crfsuite").read_bytes()[:-1])
    with pytest.raises(ModelError, match="crf.crfsuite: damaged or truncated"):
        CoreSCClassifier.load(d)


def test_a_model_without_records_is_refused(model_copy: Path) -> None:
    """Without the records nothing tells 200 changed bytes of a CRF from the model that
    was trained (issue 42: they gave other labels, silently)."""
    meta = json.loads((model_copy / "meta.json").read_text())
    del meta[FILES_KEY]
    (model_copy / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(ModelError, match="meta.json: records no file sizes and hashes"):
        CoreSCClassifier.load(model_copy)


def test_crf_structure_checks(tmp_path: Path) -> None:
    data = (FAST / "crf.crfsuite").read_bytes()
    check_crf(tmp_path / "x", data)
    for bad in (data[:20], b"XXXX" + data[4:], data[:48] + b"\0" * 10, data[:-1]):
        with pytest.raises(ModelError, match="x: damaged CRF model"):
            check_crf(tmp_path / "x", bad)
    with pytest.raises(ModelError, match="are not the model's"):
        check_crf(tmp_path / "x", data, ["Res", "Bac"])


def test_unrecorded_and_missing_files(model_copy: Path) -> None:
    files = json.loads((model_copy / "meta.json").read_text())[FILES_KEY]
    read_recorded(model_copy, files)
    refuse_unrecorded(model_copy, files, RECORDED_FILES)
    (model_copy / "crf_stack.crfsuite").write_bytes(b"")
    with pytest.raises(ModelError, match="crf_stack.crfsuite: not recorded"):
        refuse_unrecorded(model_copy, files, RECORDED_FILES)
    with pytest.raises(ModelError, match="nothing.bin: missing"):
        read_recorded(model_copy, {"nothing.bin": record(b"")})


def test_every_hostile_model_copy_is_one_line(tmp_path: Path) -> None:
    from hostile import damaged_models

    for name, d in damaged_models(FAST, tmp_path).items():
        with pytest.raises(ModelError) as info:
            CoreSCClassifier.load(d)
        assert str(d) in str(info.value) and "\n" not in str(info.value), name


def _coresc(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "CORESC_MODEL": "fast",
           "HOME": str(cwd)}
    return subprocess.run([sys.executable, "-m", "coresc", *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("damage", ["crf-truncated", "crf-flipped", "ovr-truncated"])
def test_no_verb_crashes_on_a_damaged_model(damage: str, model_copy: Path, tmp_path: Path,
                                            fixtures: Path) -> None:
    """The issue's reproduction (``truncate -s 1000000 m/crf.crfsuite``: a segfault),
    in a child process, for every verb that loads a model."""
    name, spoil = DAMAGES[damage]
    spoil(model_copy / name)
    text = tmp_path / "p.txt"
    text.write_text("Introduction\n\nWe measured the weight of the rats. It rose.\n")
    gold = str(fixtures / "agreement_a1")
    m = str(model_copy)
    for argv in (["annotate", str(text), "--model", m],
                 ["select", str(text), "--budget", "1", "--model", m],
                 ["compare", m, "fast", gold],
                 ["train", gold, "--from", m, "-o", str(tmp_path / "adapted")]):
        done = _coresc(argv, tmp_path)
        assert done.returncode == 2, (argv, done.returncode, done.stderr[-500:])
        errors = [x for x in done.stderr.splitlines() if "error" in x]
        assert "Traceback" not in done.stderr, (argv, done.stderr)
        assert len(errors) == 1 and str(model_copy / name) in errors[0], (argv, done.stderr)


# ---------------------------------------------------------------- issue 42


@pytest.mark.parametrize("edit", list(HOSTILE_MODEL_EDITS))
def test_a_hostile_model_edit_is_refused_in_one_line(edit: str, model_copy: Path) -> None:
    """Items 13 and 16-19: a missing or extra part, a hand-edited meta.json (deep,
    wrong kinds, non-finite numbers), links, a CRF whose offsets point outside it with
    its records updated: one line naming a file of the folder."""
    HOSTILE_MODEL_EDITS[edit](model_copy)
    with pytest.raises(ModelError) as info:
        CoreSCClassifier.load(model_copy)
    message = str(info.value)
    assert message.startswith(str(model_copy) + "/") and "\n" not in message, message


@pytest.mark.parametrize("edit", ["crf label lists outside", "crf feature labels past the last",
                                  "crf label names outside", "ovr.npz deleted",
                                  "calibration.json deleted", "label_bias NaN"])
def test_annotate_refuses_a_hostile_model_in_one_line(edit: str, model_copy: Path,
                                                      tmp_path: Path) -> None:
    """The issue's reproductions: a garbled crf.crfsuite with updated records ended in a
    segmentation fault (exit 139); without ovr.npz or calibration.json, or with a NaN
    bias, annotate exited 0 with other labels or scores."""
    HOSTILE_MODEL_EDITS[edit](model_copy)
    text = tmp_path / "p.txt"
    text.write_text("Introduction\n\nWe measured the weight of the rats. It rose.\n")
    done = _coresc(["annotate", str(text), "--model", str(model_copy)], tmp_path)
    assert done.returncode == 2, (done.returncode, done.stderr[-500:])
    assert "Traceback" not in done.stderr
    errors = [x for x in done.stderr.splitlines() if "error" in x]
    assert len(errors) == 1 and str(model_copy) in errors[0], done.stderr


def test_garbled_crf_files_are_refused_or_tagged_without_a_crash(fixtures: Path) -> None:
    """Random garbles of the fast model's CRF (bytes anywhere, offsets and ids inside
    its sections, moved slices): whatever passes the check is tagged by crfsuite without
    a crash (about 28% of these crash crfsuite without it: benchmarks/hostile_models.py)."""
    from hostile import PYTHON_ERROR, REFUSED, TAGGED, garble_crf, tag_in_child

    from coresc.readers import read_file

    model = CoreSCClassifier.load(FAST)
    x = model.featurize(read_file(fixtures / "io_art_small.xml"), model.domains_)[0]
    ends = [tag_in_child(garble_crf(model._crf_bytes, seed), x, list(model.labels_))
            for seed in range(24)]
    assert set(ends) <= {TAGGED, REFUSED, PYTHON_ERROR}, ends
    assert REFUSED in ends


def test_the_saver_follows_no_planted_link(model_copy: Path, tmp_path: Path) -> None:
    """Item 15: links named like the saver's temporary files, a link in place of a model
    file and of source/ are never written through; the model's files are regular."""
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    keep = tmp_path / "keep"
    keep.mkdir()
    (keep / "crf.crfsuite").write_text("another model's file")
    out = tmp_path / "out"
    out.mkdir()
    for name in ("meta.json", "crf.crfsuite", "config.json", "ovr.npz", "MODEL_CARD.md"):
        (out / f".{name}.part").symlink_to(victim)
    (out / "calibration.json").symlink_to(victim)
    (out / "source").symlink_to(keep)
    model = CoreSCClassifier.load(model_copy)
    model.save(out)
    assert victim.read_text() == "keep me"
    assert (keep / "crf.crfsuite").read_text() == "another model's file"
    files = json.loads((out / "meta.json").read_text())[FILES_KEY]
    for name in [*files, "meta.json", "MODEL_CARD.md"]:
        assert (out / name).is_file() and not (out / name).is_symlink(), name
    assert not (out / "source").exists()
    assert not [f for f in out.iterdir() if f.name.endswith(".part") and not f.is_symlink()]
    CoreSCClassifier.load(out)
    (out / "source" / "inner").mkdir(parents=True)  # a stale source/ with a folder in it
    (out / "source" / "crf.crfsuite").write_bytes(b"stale")
    model.save(out)
    assert not (out / "source" / "crf.crfsuite").exists()
    CoreSCClassifier.load(out)


@pytest.mark.parametrize("evaluation", ["link", "not JSON", "wrong shape", "deep", "NaN"])
def test_serve_and_the_card_read_evaluation_json_as_the_loader_reads(
        evaluation: str, model_copy: Path, tmp_path: Path) -> None:
    """Items 16 and 18: GET /model served whatever JSON file evaluation.json linked to,
    and a broken one ended the server; now one line naming it, at start."""
    from coresc.model.card import card_markdown
    from coresc.serve.app import model_facts

    path = model_copy / "evaluation.json"
    secret = tmp_path / "secret.json"
    secret.write_text('{"generated": "x", "runs": [], "password": "hunter2"}')
    path.unlink()
    if evaluation == "link":
        path.symlink_to(secret)
    else:
        path.write_text({"not JSON": "{", "wrong shape": '{"runs": [{"metrics": 5}]}',
                         "deep": "[" * 100_000 + "]" * 100_000,
                         "NaN": '{"runs": [], "weaknesses": {"n": NaN}}'}[evaluation])
    for read in (model_facts, card_markdown):
        with pytest.raises(ModelError) as info:
            read(model_copy)
        assert str(info.value).startswith(f"{path}: ") and "\n" not in str(info.value)
    done = _coresc(["model-info", str(model_copy)], tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "hunter2" not in done.stdout + done.stderr


def test_a_model_saved_over_a_broken_evaluation_json_drops_it(model_copy: Path,
                                                              tmp_path: Path) -> None:
    (model_copy / "evaluation.json").write_text("[1, 2")
    CoreSCClassifier.load(model_copy).save(model_copy)
    assert not (model_copy / "evaluation.json").exists()
    from coresc.model.card import card_markdown

    assert "No held-out evaluation is recorded" in card_markdown(model_copy)


# ---------------------------------------------------------------- hashes cached per version


@pytest.fixture()
def hash_cache(tmp_path: Path, monkeypatch) -> Path:
    """An empty hash cache in ``tmp_path``; returns the counter of large files hashed."""
    from coresc.model import integrity

    monkeypatch.setenv("CORESC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(integrity, "_HASHES", {})
    monkeypatch.setattr(integrity, "_HASHES_READ", False)
    hashed: list[int] = []
    sha256 = integrity.hashlib.sha256

    class Counting:
        @staticmethod
        def sha256(data: bytes):
            if len(data) >= integrity.CACHED_MIN_BYTES:
                hashed.append(len(data))
            return sha256(data)

    monkeypatch.setattr(integrity, "hashlib", Counting)
    return hashed


def _new_process(monkeypatch) -> None:
    """Forget what this process read of the cache file, as a fresh process would."""
    from coresc.model import integrity

    monkeypatch.setattr(integrity, "_HASHES", {})
    monkeypatch.setattr(integrity, "_HASHES_READ", False)


def test_a_file_version_is_hashed_once(model_copy: Path, hash_cache, monkeypatch) -> None:
    from coresc.model import integrity

    monkeypatch.setattr(integrity, "RACY_SECONDS", 0.0)  # the copy was just written
    CoreSCClassifier.load(model_copy)
    big = [n for n in ("crf.crfsuite", "ovr.npz")
           if (model_copy / n).stat().st_size >= integrity.CACHED_MIN_BYTES]
    assert len(hash_cache) == len(big) > 0
    CoreSCClassifier.load(model_copy)
    _new_process(monkeypatch)
    CoreSCClassifier.load(model_copy)  # from the cache file
    assert len(hash_cache) == len(big)


def test_a_file_changed_after_its_hash_was_cached_is_refused(model_copy: Path, hash_cache,
                                                             monkeypatch) -> None:
    import os

    from coresc.model import integrity

    monkeypatch.setattr(integrity, "RACY_SECONDS", 0.0)
    CoreSCClassifier.load(model_copy)
    crf = model_copy / "crf.crfsuite"
    st = crf.stat()
    _flip(crf, 0.7)  # same size, same inode; mtime put back as it was
    os.utime(crf, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert crf.stat().st_size == st.st_size and crf.stat().st_mtime_ns == st.st_mtime_ns
    for _ in range(2):
        with pytest.raises(ModelError, match="crf.crfsuite: damaged: its SHA-256"):
            CoreSCClassifier.load(model_copy)
        _new_process(monkeypatch)


def test_a_racily_new_file_is_hashed_every_time(model_copy: Path, hash_cache) -> None:
    from coresc.model.integrity import hash_cache_path

    CoreSCClassifier.load(model_copy)
    first = len(hash_cache)
    CoreSCClassifier.load(model_copy)
    assert len(hash_cache) == 2 * first > 0
    assert not hash_cache_path().exists()


def test_an_unreadable_hash_cache_is_only_slower(model_copy: Path, hash_cache,
                                                 monkeypatch) -> None:
    from coresc.model import integrity

    monkeypatch.setattr(integrity, "RACY_SECONDS", 0.0)
    path = integrity.hash_cache_path()
    path.parent.mkdir(parents=True)
    for junk in (b"\xff{not json", b'{"hashes": [1, 2]}', b'{"hashes": {"k": "nothex"}}'):
        path.write_bytes(junk)
        _new_process(monkeypatch)
        CoreSCClassifier.load(model_copy)
    assert json.loads(path.read_text())["hashes"]  # rewritten whole
