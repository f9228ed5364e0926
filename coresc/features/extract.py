"""Feature extraction: a paper's layout and analyses -> one feature dict per sentence."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from itertools import compress, repeat

from ..document import Paper, Section, Sentence
from .groups import FEATURE_GROUPS, Features, check_groups
from .lexicon import (
    _BE,
    _VERB_CLASS_OF,
    _WORDLIKE,
    COMPARISON,
    CONTRAST,
    DEIXIS,
    FIRST_PERSON,
    GOAL,
    HEDGES,
    MODALS,
    NEGATION,
    norm_word,
    simple_tokenize,
    verb_lemma,
)


def _bin(k: int, n: int, nbins: int) -> int:
    """0-based bin of the k-th (0-based) item of n in nbins even bins."""
    return min(nbins - 1, (k * nbins) // max(n, 1))


def _struct1(k: int, n: int) -> str:
    """SAPIENTA's Struct-1 position in section, with real middle bins (C-E)."""
    if k == 0:
        return "first"
    if k == n - 1:
        return "last"
    if k <= 2:
        return "early"
    if k >= n - 3:
        return "late"
    return "mid" + str(_bin(k, n, 3))


class _Ctx:
    """What a paper's features need beyond the sentence: its sections and positions."""

    __slots__ = ("sec_index", "sec_k", "sec_n", "para_k", "para_n", "para_index",
                 "para_count", "top_type", "top_heading", "ordinal")


def _paper_layout(paper: Paper) -> tuple[list[Sentence], list[_Ctx], list[Section]]:
    sentences: list[Sentence] = []
    ctxs: list[_Ctx] = []
    sections = paper.sections
    ordinal = 0
    for si, sec in enumerate(sections):
        top = sec
        for _ in range(len(sections)):  # bounded: a malformed parent chain cannot loop
            if top.parent is None or top.depth <= 1:
                break
            top = sections[top.parent]
        if sec.depth <= 1:
            ordinal += 1  # title, abstract and top-level sections are numbered in order
        sec_sents = sum(len(p.sentences) for p in sec.paragraphs)
        k_in_sec = 0
        for pi, para in enumerate(sec.paragraphs):
            for k, s in enumerate(para.sentences):
                c = _Ctx()
                c.sec_index = si
                c.sec_k, c.sec_n = k_in_sec, sec_sents
                c.para_k, c.para_n = k, len(para.sentences)
                c.para_index, c.para_count = pi, len(sec.paragraphs)
                c.top_type, c.top_heading = top.type, top.heading
                c.ordinal = ordinal
                k_in_sec += 1
                sentences.append(s)
                ctxs.append(c)
    return sentences, ctxs, sections


class _Analysis:
    """Tokens, normalised words and POS tags of one sentence."""

    __slots__ = ("tokens", "lower", "words", "tags")

    def __init__(self, tokens: list[str], tags: list[str] | None) -> None:
        self.tokens = tokens
        self.lower = list(map(str.lower, tokens))
        self.words = list(map(norm_word, tokens))
        self.tags = tags


@lru_cache(maxsize=200_000)
def _wordlike(word: str) -> bool:
    return _WORDLIKE.search(word) is not None


def _ngrams(a: _Analysis, f: Features, prefix: str = "", bigrams: bool = True) -> None:
    # map/compress/update keep the per-word loops in C (the hot path); keys go in the same
    # order as one f[key] = 1.0 per unigram, then per bigram, would put them
    words = list(compress(a.words, map(_wordlike, a.words)))
    f.update(zip(map((prefix + "w=").__add__, words), repeat(1.0)))
    if bigrams:
        pairs = map((prefix + "b={}|{}").format, ["<s>", *words], [*words, "</s>"])
        f.update(zip(pairs, repeat(1.0)))
    if not prefix:
        f["first3=" + " ".join(words[:3])] = 1.0
        if words:
            f["first=" + words[0]] = 1.0


def _cues(a: _Analysis, text_lower: str) -> list[str]:
    lower = set(a.lower)
    out = []
    if not NEGATION.isdisjoint(lower) or "n't" in text_lower:
        out.append("neg")
    if not HEDGES.isdisjoint(lower):
        out.append("hedge")
    if not FIRST_PERSON.isdisjoint(lower):
        out.append("we")
    if not MODALS.isdisjoint(lower):
        out.append("modal")
    if any(map(text_lower.__contains__, DEIXIS)):
        out.append("deixis")
    if not GOAL.isdisjoint(lower):
        out.append("goal")
    if a.lower and a.lower[0] in ("to", "in") and ("to" in a.lower[:3]):
        out.append("to_start")  # "To determine ...", "In order to ..."
    if not CONTRAST.isdisjoint(lower):
        out.append("contrast")
    if not COMPARISON.isdisjoint(lower):
        out.append("compare")
    if "will" in lower or "future" in lower:
        out.append("future")
    if a.tokens and a.tokens[-1] == "?":
        out.append("question")
    if "%" in lower or "±" in text_lower or "p <" in text_lower or "p=" in text_lower:
        out.append("stats")
    if "fig" in lower or "figure" in lower or "table" in lower:
        out.append("figref")
    return out


_RB = frozenset(("RB", "RBR", "RBS"))
_FINITE = frozenset(("VBD", "VBZ", "VBP", "MD"))


class _VerbalTags(dict):
    """tag -> whether it is a verb (``VB*``) or a modal (``MD``), filled as tags are met."""

    def __missing__(self, tag: str) -> bool:
        value = self[tag] = tag.startswith("VB") or tag == "MD"
        return value


_VERBAL_TAG = _VerbalTags()


def _verb_group(tags: Sequence[str], i: int) -> int:
    """Index of the last verb of the group starting at ``i`` (aux/modal + adverbs + verbs)."""
    j = i
    k = i + 1
    while k < len(tags) and (tags[k] in _RB or tags[k].startswith("VB")):
        if tags[k].startswith("VB"):
            j = k
        k += 1
    return j


def _verbs(a: _Analysis, f: Features, classes: bool, verbs: bool, syntax: bool) -> None:
    """Verb, tense, voice, modality, verb-class and subject/object cues from POS tags.

    The main clause is the first verb group that starts with a finite verb or a modal
    ("we have investigated", "were then washed", "may suggest"); its first word gives
    the tense, "be" + VBN in it the voice, "have" + VBN the perfect aspect.
    """
    tags = a.tags or []
    lower = a.lower
    n = len(tags)
    verbal = list(compress(range(n), map(_VERBAL_TAG.__getitem__, tags)))
    for i in verbal:
        tag = tags[i]
        if tag == "MD":
            if verbs:
                f["modal=" + lower[i]] = 1.0
            continue
        lemma = verb_lemma(lower[i])
        passive = False
        if tag == "VBN":  # "be" (maybe with adverbs between) before a VBN
            j = i - 1
            while j >= 0 and tags[j] in _RB:
                j -= 1
            passive = j >= 0 and lower[j] in _BE
        if verbs:
            f["verb=" + lemma] = 1.0
            if passive:
                f["pverb=" + lemma] = 1.0
        if classes and lemma in _VERB_CLASS_OF:
            cls = _VERB_CLASS_OF[lemma]
            f["vclass=" + cls] = 1.0
            f["vclass_tag=" + cls + "|" + tag] = 1.0
            if passive:
                f["vclass_pass=" + cls] = 1.0
    start = None
    for i in verbal:
        if tags[i] in _FINITE:
            start = i
            break
    else:  # no finite verb and no modal: the first verb of any form
        start = verbal[0] if verbal else None
    if start is None:
        if verbs:
            f["noverb"] = 1.0
        return
    main = _verb_group(tags, start)
    group = range(start, main + 1)
    lemma = verb_lemma(lower[main])
    if verbs:
        first = tags[start]
        tense = {"VBD": "past", "VBZ": "present", "VBP": "present", "VB": "base",
                 "VBG": "gerund", "VBN": "participle"}.get(first, "modal")
        if first == "MD":
            tense = "future" if lower[start] in ("will", "shall") else "modal"
        grp_lemmas = [verb_lemma(lower[k]) for k in group if tags[k].startswith("VB")]
        voice = "passive" if tags[main] == "VBN" and "be" in grp_lemmas[:-1] else "active"
        perfect = tags[main] == "VBN" and "have" in grp_lemmas[:-1] or (
            len(grp_lemmas) > 2 and grp_lemmas[-2] == "be" and "have" in grp_lemmas)
        f["tense=" + tense] = 1.0
        f["voice=" + voice] = 1.0
        f["tense_voice=" + tense + "|" + voice] = 1.0
        if voice == "passive":
            f["passive"] = 1.0
        if perfect:
            f["perfect"] = 1.0
        f["main=" + lemma] = 1.0
        if start > 0 and lower[start - 1] == "we":
            f["we_verb=" + lemma] = 1.0
        if classes and lemma in _VERB_CLASS_OF:
            f["main_class=" + _VERB_CLASS_OF[lemma] + "|" + tense + "|" + voice] = 1.0
    if syntax:
        subj = None
        for j in range(start - 1, -1, -1):
            if tags[j].startswith(("NN", "PRP")):
                subj = a.words[j]
                f["subj=" + subj] = 1.0
                if j > 0 and lower[j - 1] in ("this", "these", "our", "the", "such"):
                    f["subj_det=" + lower[j - 1]] = 1.0
                break
            if tags[j] in (",", ":"):
                break  # do not cross into a fronted clause
        if subj == "we":
            f["subj_we"] = 1.0
        for j in range(main + 1, min(n, main + 6)):
            if tags[j].startswith("NN"):
                f["obj=" + a.words[j]] = 1.0
                break


# ---------------------------------------------------------------- public API

# A word with a citation number glued to it: "thiophene20", "catalytic1,2", "clusters.7,8".
# Readers flatten <REF>/<xref> markup into the text (which must stay as written), so
# superscript citation numbers end up fused with the word before them and would make it
# a different n-gram.
_GLUED_CITATION = re.compile(r"([A-Za-z]*[a-z]{3})(\.?)\d{1,3}(?:,\d{1,3})*")


def unglue_citations(tokens: list[str]) -> list[str]:
    """Drop citation numbers fused to a word (``"thiophene20"`` -> ``"thiophene"``).

    Only for sentences known to cite (the citation count carries the number); names
    such as ``p53`` or ``Cx43`` are untouched, as the word part must end in three
    lower-case letters. A full stop before the numbers stays a token of its own.
    """
    out = []
    for t in tokens:
        m = _GLUED_CITATION.fullmatch(t) if t[-1:].isdigit() else None
        if m is None:
            out.append(t)
        else:
            out.extend(m.groups() if m.group(2) else m.groups()[:1])
    return out


#: Characters of a sentence the features read: far beyond any real sentence (the
#: longest in ../shared/data has 11,785, in a PDF-extracted paper), so only a runaway one (an
#: unpunctuated 50 MB "sentence": 8 million tokens, 2 GB of tokens, tags and features)
#: is read in part. The output still holds all of its text.
SENTENCE_CHARS = 100_000


def analyse(paper: Paper, tokenize=None, tagger=None) -> list[_Analysis]:
    """Tokenise (and POS-tag, when a tagger is given) every sentence of the paper."""
    if tokenize is None:
        from ..tokenize import tokenize
    tok = tokenize
    token_lists = []
    for s in paper.sentences():
        tokens = tok(s.text[:SENTENCE_CHARS])
        token_lists.append(unglue_citations(tokens) if s.n_citations else tokens)
    if tagger is None:
        return [_Analysis(tokens, None) for tokens in token_lists]
    many = getattr(tagger, "tag_many", None)  # one batched call when the tagger has it
    tag_lists = many(token_lists) if many is not None else [
        tagger.tag(tokens) if tokens else None for tokens in token_lists]
    return [_Analysis(tokens, tags if tokens else None)
            for tokens, tags in zip(token_lists, tag_lists, strict=True)]


def paper_features(paper: Paper, groups: Sequence[str] = FEATURE_GROUPS,
                   tokenize=None, tagger=None,
                   analyses: list[_Analysis] | None = None) -> list[Features]:
    """One feature dict per sentence of ``paper`` (reading order), for the given groups.

    ``tokenize(text) -> list[str]`` and ``tagger.tag(tokens) -> list[str]`` (Penn tags)
    are pluggable; without a tagger the verbs/verbclass/syntax groups yield nothing.
    ``analyses`` (from :func:`analyse`) skips tokenising again, so several group
    configurations of one run can share the expensive part.
    """
    groups = set(check_groups(groups))
    sentences, ctxs, sections = _paper_layout(paper)
    if analyses is None:
        analyses = analyse(paper, tokenize, tagger)
    n = len(sentences)
    lengths = [len(a.tokens) for a in analyses]
    max_len = max(lengths, default=1) or 1
    local: list[Features] = []
    cue_lists: list[list[str]] = []
    heading_sets: dict[str, tuple[str, ...]] = {}  # heading -> its words, once per paper

    def heading_words(heading: str) -> tuple[str, ...]:
        words = heading_sets.get(heading)
        if words is None:
            words = heading_sets[heading] = tuple(set(_heading_words(heading)))
        return words

    for i, (s, c, a) in enumerate(zip(sentences, ctxs, analyses, strict=True)):
        f: Features = {"bias": 1.0}
        sec = sections[c.sec_index]
        text_lower = s.text[:SENTENCE_CHARS].lower()
        cues = _cues(a, text_lower)
        cue_lists.append(cues)
        struct1 = _struct1(c.sec_k, c.sec_n)
        if "location" in groups:
            f[f"abs={_bin(i, n, 10)}"] = 1.0
            f["insec=" + struct1] = 1.0
            f[f"insec5={_bin(c.sec_k, c.sec_n, 5)}"] = 1.0
            f[f"inpara={_bin(c.para_k, c.para_n, 5)}"] = 1.0
            if c.para_k == 0:
                f["para_first"] = 1.0
            if c.para_k == c.para_n - 1:
                f["para_last"] = 1.0
            f["para_idx=" + ("first" if c.para_index == 0 else
                             "last" if c.para_index == c.para_count - 1 else "mid")] = 1.0
        if "section" in groups:
            f[f"sec_ord={min(c.ordinal, 10)}"] = 1.0
            f["sec_type=" + sec.type] = 1.0
            f["top_type=" + c.top_type] = 1.0
            f[f"depth={min(sec.depth, 3)}"] = 1.0
            f[f"top_x_insec={c.top_type}|{struct1}"] = 1.0
            f[f"sec_x_para={sec.type}|{_bin(c.para_k, c.para_n, 3)}"] = 1.0
            f[f"top_x_abs={c.top_type}|{_bin(i, n, 5)}"] = 1.0
            if "location" in groups:
                f[f"top_x_parafirst={c.top_type}|{c.para_k == 0}"] = 1.0
        if "length" in groups:
            f[f"rel_len={_bin(lengths[i], max_len + 1, 10)}"] = 1.0
            f[f"len={min(lengths[i] // 8, 8)}"] = 1.0
        if "citations" in groups:
            f[f"cites={min(s.n_citations, 2)}"] = 1.0
            if "et al" in text_lower:
                f["etal"] = 1.0
        if "ngrams" in groups:
            _ngrams(a, f)
        if groups & {"verbs", "verbclass", "syntax"} and a.tags:
            _verbs(a, f, "verbclass" in groups, "verbs" in groups, "syntax" in groups)
        if "cues" in groups:
            for cue in cues:
                f["cue=" + cue] = 1.0
            if "section" in groups:
                for cue in cues:
                    f[f"cue_x_top={cue}|{c.top_type}"] = 1.0
        if "heading" in groups:
            for w in heading_words(sec.heading):
                f["hw=" + w] = 1.0
            if c.top_heading != sec.heading:
                for w in heading_words(c.top_heading):
                    f["thw=" + w] = 1.0
        if "zone" in groups:
            f["zone=" + s.zone] = 1.0
        local.append(f)
    if "context" in groups:
        _add_context(local, analyses, cue_lists, ctxs)
    return local


def _heading_words(heading: str) -> list[str]:
    return [norm_word(w) for w in simple_tokenize(heading) if w.isalpha() and len(w) > 2]


# Local features of a neighbour that are copied into a sentence's context features.
_CARRIED = ("first=", "tense=", "voice=", "main=", "cites=", "we_verb=")


def _add_context(feats: list[Features], analyses: list[_Analysis], cue_lists: list[list[str]],
                 ctxs: list[_Ctx]) -> None:
    n = len(feats)
    carried = [[k for k in f if k.startswith(_CARRIED)] for f in feats]
    for i in range(n):
        f = feats[i]
        for offset, prefix in ((-1, "p:"), (1, "n:")):
            j = i + offset
            if j < 0 or j >= n:
                f[prefix + "none"] = 1.0
                continue
            if ctxs[j].sec_index != ctxs[i].sec_index:
                f[prefix + "other_section"] = 1.0
            _ngrams(analyses[j], f, prefix, bigrams=False)
            for cue in cue_lists[j]:
                f[prefix + "cue=" + cue] = 1.0
            for key in carried[j]:
                f[prefix + key] = 1.0


def paper_labels(paper: Paper) -> list[str | None]:
    """Each sentence's primary gold label, ``None`` for unlabelled sentences."""
    return [s.gold[0].code if s.gold else None for s in paper.sentences()]


