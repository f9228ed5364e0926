"""The sentence splitter on the cases scientific text throws at it, and on the gold corpora."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from coresc.split import split, split_offsets


@pytest.mark.parametrize("text, expected", [
    ("Growth was fast. Next we looked.", ["Growth was fast.", "Next we looked."]),
    ("As shown in Fig. 3, cells grew. Then they died.",
     ["As shown in Fig. 3, cells grew.", "Then they died."]),
    ("See Figs. 2 and 3. Eq. 4 gives the rate.", ["See Figs. 2 and 3.", "Eq. 4 gives the rate."]),
    ("Smith et al. showed it. We agree.", ["Smith et al. showed it.", "We agree."]),
    ("Salts, e.g. NaCl, i.e. table salt, cf. Ref. 5, were used.",
     ["Salts, e.g. NaCl, i.e. table salt, cf. Ref. 5, were used."]),
    ("The size was approx. 5 nm vs. ca. 7 nm. No. 4 failed.",
     ["The size was approx. 5 nm vs. ca. 7 nm.", "No. 4 failed."]),
    ("We used 0.1 M NaCl. It worked.", ["We used 0.1 M NaCl.", "It worked."]),
    ("E. coli and S. aureus were grown. J. M. Smith helped.",
     ["E. coli and S. aureus were grown.", "J. M. Smith helped."]),
    ("It was heated to 725 K. Then it cooled.", ["It was heated to 725 K.", "Then it cooled."]),
    ("It melts at 42 °C. Then it flows.", ["It melts at 42 °C.", "Then it flows."]),
    ("This is known [3,4]. Next we test.", ["This is known [3,4].", "Next we test."]),
    ("This is known.[3] Next we test.", ["This is known.[3]", "Next we test."]),
    ("This is known.3,4 Next we test.", ["This is known.3,4", "Next we test."]),
    ("This is known.12–15 Next we test.", ["This is known.12–15", "Next we test."]),
    ("Maddox et al.14 divided it. Fine.", ["Maddox et al.14 divided it.", "Fine."]),
    ("It rose (see above). (The rest fell.) \"Quoted.\" Done.",
     ["It rose (see above).", "(The rest fell.)", "\"Quoted.\"", "Done."]),
    ("It was small. 13C NMR showed it. p53 was high. mRNA fell.",
     ["It was small.", "13C NMR showed it.", "p53 was high.", "mRNA fell."]),
    ("It was small. and not large.", ["It was small. and not large."]),
    ("Why? Because! Yes.", ["Why?", "Because!", "Yes."]),
    # an arrow a PDF's font gives as "!": no exclamation before a lower-case name
    ("An edge p1 ! p2 for each p2 in p1. Next.", ["An edge p1 ! p2 for each p2 in p1.",
                                                   "Next."]),
    ("The result: (i) one thing. (ii) Another.", ["The result: (i) one thing.", "(ii) Another."]),
    ("Treated with NO. The result held.", ["Treated with NO.", "The result held."]),
    # "no." before a number is the abbreviation; before a word it ends the sentence
    ("Styrene (CAS no. 100-42-5) is toxic. The answer was no. Then it rose.",
     ["Styrene (CAS no. 100-42-5) is toxic.", "The answer was no.", "Then it rose."]),
    ("β-Carotene was used. α-Helices formed.", ["β-Carotene was used.", "α-Helices formed."]),
    ("", []),
    ("   ", []),
])
def test_split_cases(text, expected):
    assert split(text) == expected


def test_offsets_cover_text_and_trim_whitespace():
    text = "  First one.   Second one.\nThird one.  "
    spans = split_offsets(text)
    assert [text[a:b] for a, b in spans] == ["First one.", "Second one.", "Third one."]
    covered = "".join(text[a:b] for a, b in spans)
    assert covered.replace(" ", "") == text.replace(" ", "").replace("\n", "")


@pytest.mark.slow
def test_boundary_f1_on_gold_paragraphs(shared_data):
    """The splitter's speed is benchmarks/splitter.py's to print, not a test's to bound."""
    spec = importlib.util.spec_from_file_location(
        "bench_splitter", Path(__file__).parent.parent / "benchmarks" / "splitter.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    paragraphs = bench.gold_paragraphs(["cra-corpus"])
    result = bench.evaluate(paragraphs, bench._coresc)
    assert result["boundaries"] > 5000
    assert result["f1"] >= 0.97
