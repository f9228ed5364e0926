"""HTML view: pages and the corpus view, checked by parsing the HTML (no browser)."""

from __future__ import annotations

import base64
import hashlib
import re
import zlib
from pathlib import Path

import pytest
from helpers import EVIL, html_paper, sentence
from lxml import html as lhtml

from coresc.cli import main
from coresc.document import Paper, Paragraph, Section
from coresc.errors import UsageError
from coresc.labels import LABELS
from coresc.metrics import classification_scores
from coresc.writers import write_papers
from coresc.writers.html import (
    CORESC_STYLES,
    label_styles,
    render_corpus,
    render_paper,
    write_html,
)
from coresc.writers.html.styles import FALLBACK_STYLES


def sentences_of(tree) -> list:
    return tree.xpath('//*[contains(concat(" ", normalize-space(@class), " "), " s ")]')


@pytest.fixture(scope="module")
def page():
    return lhtml.fromstring(render_paper(html_paper()))


def test_one_element_per_sentence_with_labels(page):
    paper = html_paper()
    els = sentences_of(page)
    assert len(els) == len(paper) == 8
    assert [e.get("data-sid") for e in els] == [s.sid for s in paper.sentences()]
    # primary label: predicted when present, else gold, else empty
    assert [e.get("data-label") for e in els] == ["Obj", "Bac", "Met", "Exp", "Met", "Res",
                                                  "", "Con"]
    assert [e.get("data-gold") for e in els] == ["Obj", "Bac", "Goa", "Exp", "Met", "Obs",
                                                 None, "Con"]
    assert [e.get("data-match") for e in els] == [None, "1", "0", "1", "1", "0", None, None]


def test_mismatches_marked_and_counted(page):
    marked = [e for e in sentences_of(page) if "x" in e.get("class").split()]
    assert [e.get("data-sid") for e in marked] == ["3", "6"]
    assert "gold Goa/Obj" in marked[0].text_content()
    assert "2 mismatches" in page.get_element_by_id("agreement").text_content()
    assert "3 of 5 sentences" in page.get_element_by_id("agreement").text_content()


def test_secondary_badges_and_scores(page):
    els = {e.get("data-sid"): e for e in sentences_of(page)}
    badges = [b.get("data-label") for b in els["5"].find_class("b")]
    assert badges == ["Exp", "Obs"]
    assert els["5"].get("title").startswith("predicted: Met 0.700, Exp 0.200, Obs 0.100")
    assert "gold: Goa, Obj" in els["3"].get("title")
    # gold secondary labels are badges when nothing is predicted
    assert [b.get("data-label") for b in els["8"].find_class("b")] == ["Res"]
    assert els["4"].find_class("b") == []


def test_text_is_escaped_and_only_our_script_exists(page):
    raw = render_paper(html_paper())
    assert "<script>window.__pwned" not in raw
    assert "<img src=x" not in raw
    assert len(page.xpath("//script")) == 1
    assert page.xpath("//img") == []
    evil = [e for e in sentences_of(page) if e.get("data-sid") == "5"][0]
    assert EVIL in evil.text_content()
    assert page.find(".//title").text == "Cats & <dogs> in catalysis"
    assert page.xpath("//h3")[0].text_content() == "Samples <i>"


def test_page_is_self_contained_with_script_pinned_by_hash(page):
    raw = render_paper(html_paper())
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", raw)
    assert "@import" not in raw and "url(" not in raw
    csp = page.xpath('//meta[@http-equiv="Content-Security-Policy"]/@content')[0]
    assert "default-src 'none'" in csp
    script = page.xpath("//script")[0].text
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert f"'sha256-{digest}'" in csp


def test_headings_follow_depth(page):
    assert page.xpath("//h1")[0].xpath('.//*[@data-sid="1"]')  # the title sentence is the h1
    assert [h.text_content() for h in page.xpath("//main//h2")] == [
        "Abstract", "Methods", "Section 5 (without heading)"]  # as the summary names it
    assert [h.text_content() for h in page.xpath("//main//h3")] == ["Samples <i>"]
    assert page.xpath('//p[@class="caption"]//*[@data-sid="6"]')


def test_legend_lists_all_coresc_labels_with_counts(page):
    buttons = page.xpath('//*[@id="legend"]//button[@data-label]')
    assert [b.get("data-label") for b in buttons] == list(LABELS)
    met = [b for b in buttons if b.get("data-label") == "Met"][0]
    assert met.find_class("n")[0].text == "2"
    hyp = [b for b in buttons if b.get("data-label") == "Hyp"][0]
    assert hyp.get("disabled") is not None  # nothing to filter


def test_small_words_count_right(page):
    """One sentence is "1 sentence"; the header gives the count once; a text read from
    standard input (or pasted on serve's page) is not titled "stdin"."""
    tips = [b.get("title") for b in page.xpath('//*[@id="legend"]//button[@data-label]')]
    assert "Result: 1 sentence" in tips and "Method: 2 sentences" in tips
    assert not [t for t in tips if t.endswith(" 1 sentences")]
    meta = page.xpath('//header//p[@class="meta"]')[0].text_content()
    assert meta.endswith("8 sentences · colours show predicted labels (5 sentences); gold "
                         "labels on 7 sentences are compared"), meta
    every = html_paper()
    every.sections = every.sections[1:2]
    meta = lhtml.fromstring(render_paper(every)).xpath('//p[@class="meta"]')[0].text_content()
    assert meta.count("sentences") == 1 and meta.endswith(
        "· 2 sentences · colours show predicted labels; gold labels are compared"), meta
    pasted = Paper(id="stdin", sections=every.sections)
    tree = lhtml.fromstring(render_paper(pasted))
    assert tree.xpath("//h1")[0].text_content() == "Untitled text"
    assert tree.xpath("//title")[0].text_content().startswith("Untitled text")


def test_summary_bars_per_section(page):
    rows = page.xpath('//table[@id="section-bars"]//tr[td]')
    # sections with sentences, and the empty "Methods" that holds "Samples"
    assert [r[0].text_content() for r in rows] == [
        "Title", "Abstract", "Methods", "Samples <i>", "Section 5 (without heading)"]
    assert rows[2].xpath(".//svg") == [] and rows[2][1].text == "0"
    samples = rows[3]
    rects = samples.xpath(".//*[local-name()='rect']")
    assert sorted(r.get("data-label") for r in rects) == ["Exp", "Met", "Res"]
    widths = sum(float(r.get("width")) for r in rects)
    assert widths == pytest.approx(600, abs=0.05)


def test_palette_is_distinct_and_other_schemes_get_colours():
    coresc = [CORESC_STYLES[lab] for lab in LABELS]
    assert len(set(coresc)) == 11 and len({c for c, _ in coresc}) == 11
    other = label_styles(["background", "objective", "method", "result", "other"])
    assert len(set(other.values())) == 5
    assert other["method"] == CORESC_STYLES["Met"]  # same colour on every page
    made_up = label_styles(["zeta", "alpha", "beta"])
    assert len(set(made_up.values())) == 3
    # a made-up label's slot comes from its name, the same on every page ...
    n = len(FALLBACK_STYLES)
    start = zlib.crc32(b"alpha") % n
    assert label_styles(["alpha"])["alpha"] == FALLBACK_STYLES[start]
    # ... unless a label on the page has that style: then it takes the next free slot
    taken = next(lab for lab in LABELS if CORESC_STYLES[lab] == FALLBACK_STYLES[start])
    assert label_styles(["alpha", taken])["alpha"] == FALLBACK_STYLES[(start + 1) % n]
    paper = Paper(id="abs", sections=[Section("Abstract", "abstract", depth=0, paragraphs=[
        Paragraph([sentence(1, "We study X.", gold=["objective"]),
                   sentence(2, "X is used a lot.", gold=["background"])])])])
    tree = lhtml.fromstring(render_paper(paper))
    legend = [b.get("data-label") for b in tree.xpath('//*[@id="legend"]//button')]
    assert legend == ["background", "objective"]  # no CoreSC labels for another scheme
    styles = [e.get("style") for e in sentences_of(tree)]
    assert styles[0] != styles[1] and all("--c:#" in s for s in styles)


def test_corpus_view_distribution_and_confusion():
    papers = [html_paper("p1"), html_paper("p2")]
    tree = lhtml.fromstring(render_corpus(papers, links={"p1": "p1.html"}))
    rows = tree.xpath('//table[@id="paper-bars"]//tr[@data-paper]')
    assert [r.get("data-paper") for r in rows] == ["p1", "p2"]
    assert rows[0].xpath(".//a/@href") == ["p1.html"] and not rows[1].xpath(".//a")
    counts = {r[0].text: [int(c.text) for c in r[2:]]
              for r in tree.xpath('//table[@id="label-counts"]//tr[td]')}
    assert counts["Met"] == [2, 4]  # gold, predicted
    assert counts["Hyp"] == [0, 0]
    pairs = [(s.gold[0].code, s.pred[0].label) for p in papers for s in p.sentences()
             if s.gold and s.pred]
    expected = classification_scores(*zip(*pairs, strict=True))
    cells = tree.xpath("//*[@id='confusion']//*[local-name()='g']")
    labels = expected["confusion"]["labels"]
    assert len(cells) == len(labels) ** 2
    got = {(g.get("data-gold"), g.get("data-pred")): int(t[0].text) if (t := g.xpath(
        "./*[local-name()='text']")) else 0 for g in cells}
    for i, gl in enumerate(labels):
        for j, pl in enumerate(labels):
            assert got[(gl, pl)] == expected["confusion"]["matrix"][i][j]
    assert f"accuracy {expected['accuracy']:.3f}" in tree.get_element_by_id("scores").text


def test_corpus_view_without_predictions_has_no_confusion():
    paper = html_paper()
    for s in paper.sentences():
        s.pred = []
    tree = lhtml.fromstring(render_corpus([paper]))
    assert not tree.xpath("//*[@id='confusion']")
    assert tree.xpath('//table[@id="corpus-bars"]//tr[td]')


def test_write_html_one_and_many(tmp_path: Path):
    one = write_html([html_paper()], tmp_path / "one.html")
    assert one == [tmp_path / "one.html"] and one[0].read_text().startswith("<!DOCTYPE html>")
    many = write_html([html_paper("a/b"), html_paper("a/b"), html_paper("c")], tmp_path / "d")
    assert [p.name for p in many] == ["a_b.html", "a_b-2.html", "c.html", "index.html"]
    index = lhtml.fromstring((tmp_path / "d" / "index.html").read_text())
    assert index.xpath('//tr[@data-paper="c"]//a/@href') == ["c.html"]
    with pytest.raises(UsageError, match="need a directory"):
        write_html([html_paper("a"), html_paper("b")], tmp_path / "two.html")
    src = tmp_path / "input.html"
    src.write_text("keep me")
    with pytest.raises(UsageError, match="overwrite an input"):
        write_html([html_paper()], src, inputs=[src])
    assert src.read_text() == "keep me"


def test_registered_as_writer_format(tmp_path: Path):
    written = write_papers([html_paper("p1"), html_paper("p2")], "html", tmp_path / "out")
    assert sorted(p.name for p in written) == ["p1.html", "p2.html"]
    tree = lhtml.fromstring(written[0].read_text(encoding="utf-8"))
    assert len(sentences_of(tree)) == 8


def _gold_only(pid: str) -> Paper:
    paper = html_paper(pid)
    for s in paper.sentences():
        s.pred = []
    return paper


def test_view_command_page_and_corpus(tmp_path: Path, capsys):
    papers = [_gold_only("p1"), _gold_only("p2")]
    src = tmp_path / "in"
    write_papers(papers, "xml", src)
    assert main(["view", str(src / "p1.xml"), "-o", str(tmp_path / "p1.html")]) == 0
    tree = lhtml.fromstring((tmp_path / "p1.html").read_text())
    els = sentences_of(tree)
    assert len(els) == 8
    assert [e.get("data-label") for e in els] == [
        s.gold_codes[0] if s.gold else "" for s in papers[0].sentences()]
    assert main(["view", str(src), "-o", str(tmp_path / "sum.html"),
                 "--pages", str(tmp_path / "pages")]) == 0
    summary = lhtml.fromstring((tmp_path / "sum.html").read_text())
    assert summary.xpath("//tr[@data-paper]//a/@href") == ["pages/p1.html", "pages/p2.html"]
    assert len(sentences_of(lhtml.fromstring((tmp_path / "pages" / "p2.html").read_text()))) == 8
    assert main(["view", str(src / "p1.xml"), "-o", str(src / "p1.xml")]) == 2
    assert "overwrite an input" in capsys.readouterr().err
    assert main(["view", str(tmp_path / "missing.xml"), "-o", str(tmp_path / "m.html")]) == 2
    assert not (tmp_path / "m.html").exists()
    assert main(["view", str(src / "p1.xml"), "-o", str(tmp_path / "x.html"),
                 "--pages", str(tmp_path / "x")]) == 2


def test_view_shows_annotated_xml_labels_as_predictions(tmp_path: Path):
    paper = html_paper("p1")
    for s in paper.sentences():  # as after `coresc annotate`: predictions only
        s.gold = []
    write_papers([paper], "xml", tmp_path / "p1.xml")
    assert main(["view", str(tmp_path / "p1.xml"), "-o", str(tmp_path / "p1.html")]) == 0
    els = sentences_of(lhtml.fromstring((tmp_path / "p1.html").read_text()))
    by_sid = {e.get("data-sid"): e for e in els}
    assert by_sid["5"].get("data-pred") == "Met" and by_sid["5"].get("data-gold") is None
    assert by_sid["5"].get("title").startswith("predicted: Met 0.700, Exp 0.200, Obs 0.100")
    assert by_sid["1"].get("data-pred") is None  # no label, no prediction
