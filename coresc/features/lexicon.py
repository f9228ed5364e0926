"""Word normalisation and the word lists the features look for (negation, hedges, verb
classes ...): data and small pure functions, no paper structure."""

from __future__ import annotations

import re
from functools import lru_cache

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

__all__ = [
    "COMPARISON",
    "CONTRAST",
    "DEIXIS",
    "FIRST_PERSON",
    "GOAL",
    "HEDGES",
    "MODALS",
    "NEGATION",
    "RESULT_WORDS",
    "VERB_CLASSES",
    "norm_word",
    "simple_tokenize",
    "verb_lemma",
]
