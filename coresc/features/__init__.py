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

The package's files: :mod:`.groups` (the group names), :mod:`.lexicon` (word
normalisation and word lists), :mod:`.extract` (:func:`paper_features`), :mod:`.stacking`
(features for the stacked CRF). Every name stays importable from ``coresc.features``.
"""

from __future__ import annotations

# The package's files name its ideas; every name stays importable from coresc.features.
from .extract import (
    analyse,
    paper_features,
    paper_labels,
    unglue_citations,
)
from .groups import (
    DEFAULT_FEATURES,
    FEATURE_GROUPS,
    Features,
    check_groups,
)
from .lexicon import *  # noqa: F403  (the word lists: lexicon.__all__)
from .lexicon import __all__ as _lexicon_names
from .stacking import (
    marginal_features,
    sentence_blocks,
)

__all__ = [
    *_lexicon_names,
    "DEFAULT_FEATURES",
    "FEATURE_GROUPS",
    "Features",
    "analyse",
    "check_groups",
    "marginal_features",
    "paper_features",
    "paper_labels",
    "sentence_blocks",
    "unglue_citations",
]
