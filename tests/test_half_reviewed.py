"""Half-reviewed files (a review's unreviewed sentences keep the model's label withheld)
never lose their gold: not in `consensus`, not in `convert --to mode2` or TEI."""

from __future__ import annotations

import shutil

from lxml import etree

from coresc.cli import main
from coresc.document import Prediction
from coresc.readers import read_corpus, read_file
from coresc.writers.mode2 import render_mode2


def _half_reviewed(src, dst):
    """``src``'s papers with each one's first sentence unreviewed, as `coresc review`
    writes it: no CoreSc, the model's label in a CoreScWithheld."""
    dst.mkdir()
    for f in sorted(src.glob("*.xml")):
        tree = etree.parse(str(f))
        s = next(tree.iter("s"))
        kept = [el for el in s if el.tag.startswith("CoreSc")]
        for el in kept:
            s.remove(el)
        etree.SubElement(s, "CoreScWithheld", type=kept[0].get("type"), score="0.500",
                         review="unreviewed", model="fast")
        tree.write(str(dst / f.name), xml_declaration=True, encoding="UTF-8")
    return dst


def _gold(papers):
    return {p.id: [s.gold_codes for s in p.sentences()] for p in papers}


def test_consensus_of_half_reviewed_sets_keeps_every_unanimous_label(fixtures, tmp_path,
                                                                      capsys):
    alice = _half_reviewed(fixtures / "agreement_a1", tmp_path / "alice")
    bob = tmp_path / "bob"
    shutil.copytree(fixtures / "agreement_a1", bob)
    out = tmp_path / "cons"
    assert main(["consensus", str(alice), str(bob), "-o", str(out)]) == 0
    capsys.readouterr()
    # alice agrees with bob wherever she labelled; a sentence only bob labelled is his
    assert _gold(read_corpus([out])) == _gold(read_corpus([bob]))
    assert b"CoreScWithheld" not in b"".join(f.read_bytes() for f in out.glob("*.xml"))


def test_convert_of_a_half_reviewed_paper_keeps_gold_and_the_withheld_label(fixtures,
                                                                            tmp_path, capsys):
    alice = _half_reviewed(fixtures / "agreement_a1", tmp_path / "alice")
    out = tmp_path / "p1.xml"
    assert main(["convert", str(alice / "p1_mode2.xml"), "--to", "mode2", "-o", str(out)]) == 0
    [before] = read_file(alice / "p1_mode2.xml")
    [after] = read_file(out)
    assert _gold([after]) == _gold([before]) and any(_gold([after])["p1"])
    first = after.sentences()[0]
    assert first.gold == [] and first.withheld == Prediction("Bac", 0.5)


def test_auto_still_writes_predictions_of_an_annotated_gold_paper(fixtures):
    [paper] = read_file(fixtures / "agreement_a1" / "p1_mode2.xml")
    sents = paper.sentences()
    for s in sents:
        s.pred = [Prediction("Res", 0.9)]
    sents[0].pred, sents[0].withheld = [], Prediction("Met", 0.2)
    sents[1].pred = []  # nothing predicted: its gold stays
    out = render_mode2(paper).decode()
    assert out.count('score="0.900"') == len(sents) - 2
    assert out.count("CoreScWithheld") == 1 and 'type="Met"' in out
    assert out.count('atype="GSC"') == 1  # only sentence 2's gold
    paper.meta["min_score"] = 0.95  # a threshold withheld everything: still predictions
    for s in sents:
        s.pred, s.withheld = [], Prediction("Res", 0.9)
    out = render_mode2(paper).decode()
    assert 'atype="GSC"' not in out and out.count("CoreScWithheld") == len(sents)


def test_tei_auto_keeps_the_gold_of_a_sentence_nothing_was_predicted_for(fixtures):
    from coresc.document import Label
    from coresc.writers.tei import render_tei

    [paper] = read_file(fixtures / "tei_sentences.xml")
    first, second = paper.sentences()[:2]
    first.gold = [Label("Hyp")]
    second.pred = [Prediction("Res", 0.9)]
    out = render_tei(paper).decode()
    assert '"#coresc.Hyp"' in out and '"#coresc.Res"' in out
    assert '"#coresc.Hyp"' not in render_tei(paper, "pred").decode()
