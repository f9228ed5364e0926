"""Feature extraction on small hand-built papers."""

from __future__ import annotations

import numpy as np
import pytest

from coresc.document import Label, Paper, Paragraph, Section, Sentence
from coresc.features import (
    FEATURE_GROUPS,
    check_groups,
    norm_word,
    paper_features,
    paper_labels,
    unglue_citations,
    verb_lemma,
)


class FakeTagger:
    """A fixed lexicon, enough for the verb features of the sentences below."""

    LEX = {"we": "PRP", "was": "VBD", "were": "VBD", "measured": "VBN", "may": "MD",
           "suggest": "VB", "investigated": "VBD", "cells": "NNS", "levels": "NNS",
           "protein": "NN", "binding": "NN", "results": "NNS", "not": "RB",
           "increase": "VB", "the": "DT", "this": "DT", "that": "IN", "in": "IN"}

    def tag(self, tokens):
        return [self.LEX.get(t.lower(), "NN") if t.isalpha() else "." for t in tokens]


def s(sid, text, labels=(), zone="body", cites=0):
    return Sentence(sid=sid, text=text, zone=zone, n_citations=cites,
                    gold=[Label(code) for code in labels])


@pytest.fixture()
def paper() -> Paper:
    return Paper(id="toy", sections=[
        Section("Title", "title", 0, None, [Paragraph([s("1", "Tiny cells", ["Obj"], "title")])]),
        Section("Abstract", "abstract", 0, None, [Paragraph([
            s("2", "We investigated the protein binding in 3 cells.", ["Goa", "Met"],
              "abstract"),
            s("3", "Results may suggest that levels increase.", ["Con"], "abstract"),
        ])]),
        Section("Methods", "methods", 1, None, []),
        Section("Cell culture", "methods", 2, 2, [Paragraph([
            s("4", "Levels were measured as before [1, 2].", ["Exp"], cites=2),
            s("5", "The cells were not measured.", []),
        ])]),
    ])


def test_groups_are_validated():
    assert check_groups(["zone", "ngrams"]) == ("ngrams", "zone")
    with pytest.raises(ValueError, match="unknown feature group"):
        check_groups(["ngrams", "sid"])


def test_normalisation():
    assert norm_word("Cells") == "cell"
    assert norm_word("studies") == "study"
    assert norm_word("2.5") == "0.0"
    assert norm_word("analysis") == "analysis"
    assert verb_lemma("measured") == "measure"
    assert verb_lemma("indicated") == "indicate"
    assert verb_lemma("contained") == "contain"
    assert verb_lemma("were") == "be"
    assert verb_lemma("stopped") == "stop"
    assert verb_lemma("increases") == "increase"


def test_one_dict_per_sentence_and_labels(paper):
    feats = paper_features(paper, tagger=FakeTagger())
    assert len(feats) == 5
    assert paper_labels(paper) == ["Obj", "Goa", "Con", "Exp", None]
    # the sentence id is never a feature (SAPIENTA leaked it)
    assert not any(k.startswith("sid") for f in feats for k in f)


def test_structure_features(paper):
    f = paper_features(paper, groups=("location", "section", "zone", "citations"))
    assert f[0]["zone=title"] == 1.0 and f[1]["zone=abstract"] == 1.0
    assert "sec_type=methods" in f[3] and "top_type=methods" in f[3]
    assert "depth=2" in f[3]
    assert "insec=first" in f[1] and "insec=last" in f[2]
    assert "para_first" in f[3] and "para_last" in f[4]
    assert "abs=0" in f[0] and "abs=8" in f[4]
    assert "cites=2" in f[3] and "cites=0" in f[4]
    # sections are numbered in order: title 1, abstract 2, Methods 3 (subsection inside)
    assert "sec_ord=2" in f[1] and "sec_ord=3" in f[3]
    assert not any(k.startswith("w=") for k in f[1])  # ngrams group is off


def test_ngram_and_cue_features(paper):
    f = paper_features(paper, groups=("ngrams", "cues", "heading", "context"))
    assert "w=cell" in f[1] and "w=0" in f[1] and "b=<s>|we" in f[1]
    assert "first=we" in f[1]
    assert "cue=we" in f[1] and "cue=goal" in f[1]
    assert "cue=hedge" in f[2] and "cue=modal" in f[2]
    assert "cue=neg" in f[4]
    assert "hw=cell" in f[3] and "thw=method" in f[3]
    assert "p:none" in f[0] and "n:none" in f[4]
    assert "p:w=level" in f[4] and "n:w=result" in f[1]
    assert "p:other_section" in f[3]


def test_verb_features_from_pos_tags(paper):
    f = paper_features(paper, groups=("verbs", "verbclass", "syntax"), tagger=FakeTagger())
    assert "we_verb=investigate" in f[1] and "tense=past" in f[1]
    assert "vclass=investigate" in f[1] and "subj_we" in f[1] and "voice=active" in f[1]
    assert "modal=may" in f[2] and "tense=modal" in f[2] and "main=suggest" in f[2]
    assert "passive" in f[3] and "pverb=measure" in f[3] and "tense=past" in f[3]
    assert "main=measure" in f[3] and "subj=level" in f[3]
    assert "passive" not in f[1]
    # "were not measured": adverb inside the verb group, still passive past
    assert "main=measure" in f[4] and "tense_voice=past|passive" in f[4]
    # without a tagger the POS groups yield nothing rather than wrong values
    bare = paper_features(paper, groups=("verbs", "verbclass", "syntax"))
    assert all(set(x) == {"bias"} for x in bare)


def test_glued_citation_numbers_are_dropped_in_citing_sentences():
    assert unglue_citations(["thiophene20", "catalytic1,2", "study", "p53", "Cx43",
                             "2,4-dinitrophenol", "H2O", "12", "clusters.7,8"]) == [
        "thiophene", "catalytic", "study", "p53", "Cx43", "2,4-dinitrophenol", "H2O", "12",
        "clusters", "."]
    cited = Paper(id="c", sections=[Section("Intro", "introduction", 1, None, [Paragraph([
        s("1", "Free thiophene20 was studied.", cites=1),
        s("2", "Free thiophene20 was studied.", cites=0),  # no citation: leave as written
    ])])])
    f = paper_features(cited, groups=("ngrams",))
    assert "w=thiophene" in f[0] and "b=free|thiophene" in f[0]
    assert "w=thiophene0" in f[1] and "w=thiophene" not in f[1]


def test_all_groups_known():
    assert len(set(FEATURE_GROUPS)) == len(FEATURE_GROUPS) >= 12


def test_marginal_features_context_means():
    from coresc.features import marginal_features
    x = [{"w=a": 1.0}, {"w=b": 1.0}, {"w=c": 1.0}]
    marg = np.array([[0.9, 0.1], [0.2, 0.8], [0.5, 0.5]])
    # sentences 0 and 1 share a paragraph, 2 is alone in its paragraph; one section
    out = marginal_features(x, marg, ["Bac", "Res"], [(0, 0), (0, 0), (0, 1)], floor=0.15)
    assert out[0]["w=a"] == 1.0 and out[0]["m=Bac"] == 0.9 and "m=Res" not in out[0]
    assert out[0]["mpara=Res"] == 0.8 and out[0]["mn=Bac"] == 0.2 and "mp=Bac" not in out[0]
    assert out[2]["mpara=alone"] == 1.0
    assert out[2]["msec=Bac"] == pytest.approx(0.55) and out[2]["msec=Res"] == pytest.approx(0.45)
    assert out[1]["mdoc=Res"] == pytest.approx(1.4 / 3)
    assert marginal_features([], np.zeros((0, 2)), ["Bac", "Res"], []) == []
