"""A damaged model directory is one line naming the file, exit 2, never a native crash
(issue 37): sizes and SHA-256 of each file are recorded in meta.json at save time and
checked before crfsuite, onnxruntime or numpy's zip reader sees the bytes; a model saved
before the records existed is checked against the crfsuite header's own size field."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from coresc.model import CoreSCClassifier
from coresc.model.integrity import FILES_KEY, check_crf_header, read_checked, record
from coresc.model.storage import BUNDLED_DIR, ModelError

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


def test_an_older_model_without_records_still_loads(model_copy: Path) -> None:
    meta = json.loads((model_copy / "meta.json").read_text())
    del meta[FILES_KEY]
    (model_copy / "meta.json").write_text(json.dumps(meta))
    CoreSCClassifier.load(model_copy)
    _truncate(model_copy / "crf.crfsuite", 0.5)  # the header still says the full size
    with pytest.raises(ModelError, match="header records"):
        CoreSCClassifier.load(model_copy)


def test_an_older_model_with_a_truncated_ovr_is_one_line(model_copy: Path) -> None:
    meta = json.loads((model_copy / "meta.json").read_text())
    del meta[FILES_KEY]
    (model_copy / "meta.json").write_text(json.dumps(meta))
    _truncate(model_copy / "ovr.npz", 0.3)
    with pytest.raises(ModelError, match="ovr.npz"):
        CoreSCClassifier.load(model_copy)


def test_crf_header_checks(tmp_path: Path) -> None:
    data = (FAST / "crf.crfsuite").read_bytes()
    check_crf_header(tmp_path / "x", data)
    for bad in (data[:20], b"XXXX" + data[4:], data[:48] + b"\0" * 10):
        with pytest.raises(ModelError):
            check_crf_header(tmp_path / "x", bad)


def test_unrecorded_and_missing_files(model_copy: Path) -> None:
    files = json.loads((model_copy / "meta.json").read_text())[FILES_KEY]
    with pytest.raises(ModelError, match="not recorded"):
        read_checked(model_copy, "MODEL_CARD.md", files)
    with pytest.raises(ModelError, match="missing"):
        read_checked(model_copy, "nothing.bin", files)


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
