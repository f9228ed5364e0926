"""Per-sentence features for the CoreSC classifier, computed from the document model.

:func:`paper_features` turns a :class:`~coresc.document.Paper` into one feature dict per
sentence (``{"name=value": 1.0}``, the form crfsuite and the one-vs-rest layer share).
Features come in named groups (:data:`FEATURE_GROUPS`) that a model configuration
switches on or off:

=============  ==========================================================================
group          what it looks at
=============  ==========================================================================
location       position in the paper (10 bins), in the section (SAPIENTA's Struct-1
               bins and 5 even bins), in the paragraph (5 bins, first/last flags),
               paragraph index in the section
section        section ordinal, heading type of the section and of its top-level
               section, depth, and heading type x position conjunctions
length         sentence length relative to the paper's longest sentence, absolute length
citations      citation count (0/1/2+) from markup (REF, xref) or text
ngrams         normalised word unigrams and bigrams (case, digits, plural), first words
verbs          verb lemmas with tense, voice (passive), modality, "we"+verb patterns
               (from POS tags)
verbclass      hand-made verb classes (investigate, show, observe, propose, use ...)
syntax         subject and object cues: head word before / after the main verb
cues           negation, hedging, first person, deixis ("this study"), goal, future,
               comparison, contrast, question
heading        words of the section heading and of the top-level section heading
zone           title / abstract / caption / body flags
context        n-grams and cue flags of the previous and next sentence
=============  ==========================================================================

SAPIENTA's bugs are not copied: positions use the real section and paragraph structure,
citations are counted the same way at training and tagging time, the sentence id is
not a feature, and verb features are really extracted.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from itertools import compress, repeat
from typing import TYPE_CHECKING

from .document import Paper, Section, Sentence

if TYPE_CHECKING:  # numpy is imported where it is used: every CLI command imports this
    import numpy as np

FEATURE_GROUPS: tuple[str, ...] = (
    "location", "section", "length", "citations", "ngrams", "verbs", "verbclass",
    "syntax", "cues", "heading", "zone", "context",
)

#: The groups a model uses unless told otherwise: all but ``context``, which lowered
#: CRA 3-fold accuracy (0.6995 with it, 0.7042 without; docs/benchmarks.md, ablation):
#: the CRF's transitions already carry what neighbours say about a sentence's label.
DEFAULT_FEATURES: tuple[str, ...] = tuple(g for g in FEATURE_GROUPS if g != "context")

Features = dict[str, float]


def check_groups(groups: Iterable[str]) -> tuple[str, ...]:
    """Validate feature-group names; return them in canonical order."""
    groups = tuple(groups)
    unknown = sorted(set(groups) - set(FEATURE_GROUPS))
    if unknown:
        raise ValueError(f"unknown feature group(s) {', '.join(unknown)}; "
                         f"known: {', '.join(FEATURE_GROUPS)}")
    return tuple(g for g in FEATURE_GROUPS if g in groups)


# ---------------------------------------------------------------- normalisation

_DIGITS = re.compile(r"\d+")
_WORDLIKE = re.compile(r"\w")
_IRREGULAR = {
    "is": "be", "are": "be", "was": "be", "were": "be", "been": "be", "being": "be",
    "am": "be", "'s": "be", "has": "have", "had": "have", "having": "have",
    "does": "do", "did": "do", "done": "do", "found": "find", "shown": "show",
    "showed": "show", "made": "make", "made.": "make", "taken": "take", "took": "take",
    "given": "give", "gave": "give", "seen": "see", "saw": "see", "known": "know",
    "knew": "know", "led": "lead", "held": "hold", "kept": "keep", "thought": "think",
    "chosen": "choose", "grown": "grow", "grew": "grow", "began": "begin",
    "begun": "begin", "became": "become", "brought": "bring", "got": "get",
    "gotten": "get", "left": "leave", "met": "meet", "paid": "pay", "said": "say",
    "sent": "send", "set": "set", "spent": "spend", "stood": "stand", "told": "tell",
    "undergone": "undergo", "underwent": "undergo", "written": "write",
    "wrote": "write", "drawn": "draw", "fed": "feed", "bound": "bind", "run": "run",
    "ran": "run", "put": "put", "cut": "cut", "read": "read", "used": "use",
    "using": "use", "uses": "use",
}


@lru_cache(maxsize=200_000)
def norm_word(token: str) -> str:
    """Lower-case, every digit run -> ``0``, plural ``-s``/``-ies`` folded.

    ``"Cells"`` -> ``"cell"``, ``"2.5"`` -> ``"0.0"``, ``"studies"`` -> ``"study"``.
    A light, table-free normalisation: fast, and enough to pool singular and plural.
    """
    w = _DIGITS.sub("0", token.lower())
    if len(w) > 4 and w.isalpha():
        if w.endswith("ies"):
            return w[:-3] + "y"
        if w.endswith("s") and not w.endswith(("ss", "us", "is", "ous", "ics")):
            return w[:-1]
    return w


# Stems that lost a final "e" to -ed/-ing (Porter's step 1b idea, widened for science).
_E_ENDINGS = ("at", "iz", "ys", "ur", "uc", "rv", "lv", "ib", "ov", "rg", "in", "us", "ar",
              "ir", "ag", "id", "ut", "bl", "pl", "rc", "ng", "os")


@lru_cache(maxsize=100_000)
def verb_lemma(token: str) -> str:
    """Crude lemma of a verb form: irregular table, then ``-ied``/``-ed``/``-ing``/``-s``."""
    w = token.lower()
    if w in _IRREGULAR:
        return _IRREGULAR[w]
    for suffix, repl in (("ied", "y"), ("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""),
                         ("s", "")):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            stem = w[: len(w) - len(suffix)] + repl
            if suffix in ("ing", "ed") and len(stem) > 3 and stem[-1] == stem[-2] \
                    and stem[-1] not in "lsz":
                stem = stem[:-1]  # "stopped" -> "stop", but "killed" stays "kill"
            elif suffix in ("ing", "ed") and stem.endswith(_E_ENDINGS) \
                    and not stem.endswith(("ain", "ein", "oin", "en", "ll", "eat", "oat", "ect")):
                stem += "e"  # "measured" -> "measure", "indicated" -> "indicate"
            if suffix == "es" and not stem.endswith(("ss", "sh", "ch", "x", "z", "o")):
                stem = w[:-1]  # "increases" -> "increase"
            return stem
    return w


# ---------------------------------------------------------------- word lists

NEGATION = frozenset("not no never neither nor none nothing without n't cannot lack "
                     "lacks lacked absence absent fail failed fails unable".split())
HEDGES = frozenset("may might could possibly possible perhaps probably likely unlikely "
                   "suggest suggests suggested suggesting appear appears appeared seem "
                   "seems seemed potential potentially putative presumably speculate "
                   "hypothesis hypothesize hypothesise hypothesized hypothesised "
                   "hypothesized whether unclear unknown remain remains "
                   "indicate indicates indicating plausible conceivably".split())
FIRST_PERSON = frozenset("we our us ours ourselves i my".split())
MODALS = frozenset("may might could can would should must will shall".split())
DEIXIS = ("this study", "this work", "this paper", "this report", "this article",
          "the present study", "the present work", "the current study", "here we",
          "in this study", "in the present", "we report", "we describe", "we present")
GOAL = frozenset("aim aims aimed objective objectives purpose goal goals "
                 "investigate investigated examine examined determine "
                 "assess evaluate explore address elucidate".split())
CONTRAST = frozenset("however although whereas but nevertheless nonetheless yet "
                     "despite unlike contrast conversely".split())
COMPARISON = frozenset("than compared comparison higher lower increased decreased more "
                       "less greater similar similarly different significantly".split())
RESULT_WORDS = frozenset("significant significantly p value values increase decrease "
                         "observed detected showed found reduced elevated".split())

#: Hand-made verb classes (lemmas), after SAPIENTA's idea of ten classes.
VERB_CLASSES: dict[str, frozenset[str]] = {
    "investigate": frozenset("investigate examine explore study address assess evaluate "
                             "determine test analyse analyze characterize characterise "
                             "elucidate probe clarify identify".split()),
    "show": frozenset("show demonstrate reveal indicate confirm establish prove "
                      "illustrate highlight support".split()),
    "suggest": frozenset("suggest imply propose hypothesize hypothesise speculate "
                         "postulate predict expect assume believe think".split()),
    "observe": frozenset("observe find detect see notice note record display exhibit "
                         "appear seem remain".split()),
    "measure": frozenset("measure quantify count calculate estimate compute score "
                         "assay monitor weigh".split()),
    "prepare": frozenset("prepare incubate treat culture add wash centrifuge dissolve "
                         "mix stain dilute harvest fix inject administer feed expose "
                         "purchase obtain collect sacrifice homogenize extract "
                         "isolate store transfect label".split()),
    "use": frozenset("use employ apply perform carry conduct adopt utilize follow "
                     "describe modify".split()),
    "change": frozenset("increase decrease reduce enhance inhibit induce elevate "
                        "suppress promote block prevent stimulate activate lower "
                        "raise affect alter abolish attenuate".split()),
    "report": frozenset("report describe publish document review discuss mention "
                        "present summarize summarise".split()),
    "model": frozenset("model simulate fit derive formulate parameterize "
                       "approximate represent".split()),
    "cause": frozenset("cause lead result contribute mediate involve associate "
                       "correlate relate link depend".split()),
}
_VERB_CLASS_OF = {lemma: cls for cls, lemmas in VERB_CLASSES.items() for lemma in lemmas}

_BE = frozenset("be is are was were been being am".split())
_SIMPLE_TOKEN = re.compile(r"\w+(?:[-'.]\w+)*|[^\w\s]")


def simple_tokenize(text: str) -> list[str]:
    """Word and punctuation tokens (used when no tokenizer is given)."""
    return _SIMPLE_TOKEN.findall(text)


# ---------------------------------------------------------------- per-sentence parts

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


def analyse(paper: Paper, tokenize=None, tagger=None) -> list[_Analysis]:
    """Tokenise (and POS-tag, when a tagger is given) every sentence of the paper."""
    if tokenize is None:
        from .tokenize import tokenize
    tok = tokenize
    token_lists = [unglue_citations(tok(s.text)) if s.n_citations else tok(s.text)
                   for s in paper.sentences()]
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
        text_lower = s.text.lower()
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


def sentence_blocks(paper: Paper) -> list[tuple[int, int]]:
    """(section index, paragraph number in the paper) of each sentence, reading order."""
    _, ctxs, _ = _paper_layout(paper)
    blocks = []
    para = -1
    last = None
    for c in ctxs:
        if (c.sec_index, c.para_index) != last:
            last = (c.sec_index, c.para_index)
            para += 1
        blocks.append((c.sec_index, para))
    return blocks


def marginal_features(x: Sequence[Features], marg: np.ndarray,
                      labels: Sequence[str], blocks: Sequence[tuple[int, int]],
                      floor: float = 0.01) -> list[Features]:
    """A stacked CRF's input: each sentence's features plus a first CRF's marginals.

    ``marg`` is (sentences x labels), columns in ``labels`` order. Added per sentence:
    its own marginals (``m=Res``), the previous and next sentence's (``mp=``, ``mn=``),
    the mean over the rest of its paragraph (``mpara=``) and section (``msec=``), and
    the paper's mean (``mdoc=``), so the second CRF sees what the first predicted around
    the sentence, beyond the one-step reach of its transitions. Values under ``floor``
    are left out (they carry little and would make every sentence dense).
    """
    import numpy as np

    n = len(x)
    if n == 0:
        return []
    marg = np.asarray(marg, dtype=float)
    sec = np.array([b[0] for b in blocks])
    par = np.array([b[1] for b in blocks])
    para_mean = _mean_of_others(marg, par)
    sec_mean = _mean_of_others(marg, sec)
    doc = marg.mean(axis=0)
    out = []
    for j in range(n):
        f = dict(x[j])
        parts = [("m=", marg[j]), ("mdoc=", doc)]
        if j > 0:
            parts.append(("mp=", marg[j - 1]))
        if j < n - 1:
            parts.append(("mn=", marg[j + 1]))
        for prefix, rows in (("mpara=", para_mean), ("msec=", sec_mean)):
            if rows[j] is None:
                f[prefix + "alone"] = 1.0
            else:
                parts.append((prefix, rows[j]))
        for prefix, vec in parts:
            for lab, v in zip(labels, vec.tolist(), strict=True):
                if v >= floor:
                    f[prefix + lab] = v
        out.append(f)
    return out


def _mean_of_others(marg: np.ndarray, group: np.ndarray) -> list[np.ndarray | None]:
    """Per row, the mean of the other rows of its group (``None`` when it is alone)."""
    import numpy as np

    ids, inverse, counts = np.unique(group, return_inverse=True, return_counts=True)
    sums = np.zeros((len(ids), marg.shape[1]))
    np.add.at(sums, inverse, marg)
    out: list[np.ndarray | None] = []
    for j, g in enumerate(inverse):
        c = counts[g] - 1
        out.append((sums[g] - marg[j]) / c if c else None)
    return out
