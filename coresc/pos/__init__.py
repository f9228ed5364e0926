"""Part-of-speech tagging with Penn-Treebank tags: a greedy averaged-perceptron tagger.

The tagger is the project's own, trained on the hand-made PTB parses of 10 OA-STM papers
(``oa-stm/treebank``) by ``experiments/train_pos_tagger.py``; the model ships in
``coresc/models/pos/tagger.npz`` (plain arrays, loaded with ``allow_pickle=False``).

Why this design (see ``docs/benchmarks.md`` for the numbers): the classifier must annotate
>= 2,000 sentences/s on one core, so the tagger may spend ~0.1 ms per sentence. Every
feature except the tag history looks at one word at a fixed offset (-2..+2), so a linear
model's score for a sentence is a sum of per-word, per-offset score vectors; those vectors
are computed once per word type and cached, and a sentence costs one numpy gather plus a
greedy left-to-right pass that adds the tag-history scores. Frequent unambiguous words
skip scoring altogether (a tag dictionary).

Files: ``tagger.py`` (the tagger: decoding, reading and writing the model), ``features.py``
(its features), ``training.py`` (the averaged perceptron), ``clusters.py`` (word clusters
for its features), ``treebank.py`` (reading its training parses).

Usage::

    from coresc.pos import PosTagger
    from coresc.tokenize import tokenize
    PosTagger.load_default().tag(tokenize("We measured the samples."))
    # ['PRP', 'VBD', 'DT', 'NNS', '.']
"""

from .clusters import learn_word_clusters
from .tagger import DEFAULT_MODEL, PosTagger, load_default
from .treebank import join_hyphens, read_treebank

__all__ = [
    "PosTagger",
    "load_default",
    "read_treebank",
    "join_hyphens",
    "learn_word_clusters",
    "DEFAULT_MODEL",
]
