"""What the encoder reads of a paper: per sentence a one-sentence input, or windows of a
section's sentences after its heading, each a *unit* of word pieces with the spans of the
sentences it scores (:func:`paper_units`)."""

from __future__ import annotations

from collections.abc import Sequence

from ...document import Paper
from .settings import EncoderSettings


def _heading(sec, s) -> str:
    """What stands for the section heading: the zone for the title and abstract."""
    return sec.heading or ("" if s.zone == "body" else s.zone)


def encoder_inputs(paper: Paper, context: str) -> list[tuple[str, str | None]]:
    """Per sentence, a one-sentence input: ``(sentence, heading)`` or ``(sentence, None)``.

    The heading is that of the sentence's section, "" for the title and abstract; the
    zone stands in for it there, since those sentences have no heading.
    """
    return [(s.text, _heading(sec, s) if context == "heading" else None)
            for sec in paper.sections for s in sec.sentences()]


#: Characters kept per word piece the encoder can read (:func:`clip_chars`). A word piece
#: is at least one character, and a word longer than WordPiece's 100 characters is one
#: piece (``[UNK]``), so only runs of whitespace or such words could need more.
CHARS_PER_PIECE = 128


def clip_chars(settings: EncoderSettings) -> int:
    """How many characters of a sentence or heading are handed to the tokenizer.

    The encoder never reads more than ``max_tokens`` word pieces of a text (the
    tokenizer truncates to it; a window keeps ``sentence_tokens`` of them), but the
    tokenizer builds every piece of its input, with its string, offsets and overflow,
    before it truncates: about 250 bytes of memory per character, 1 GB for one 4 MB
    "sentence". Cutting the text first bounds that; the pieces the encoder reads are
    the same whenever the first ``limit`` characters hold ``max_tokens`` pieces before
    the word the cut falls in, which any text with fewer than :data:`CHARS_PER_PIECE`
    characters per piece does.
    """
    return CHARS_PER_PIECE * settings.max_tokens


#: One unit of encoder input: word-piece ids, token types, and the ``(start, end)`` token
#: span of each sentence it scores (a sentence's vector is the mean over its span).
Unit = tuple[list[int], list[int], list[tuple[int, int]]]


def paper_units(tokenizer, paper: Paper, settings: EncoderSettings,
                ) -> tuple[list[Unit], list[list[int]]]:
    """A paper's encoder input: the units, and per unit the index (in
    ``paper.sentences()`` order) of the sentence each span scores. Every sentence is
    scored in exactly one unit."""
    if settings.context != "window":
        enc = tokenize(tokenizer, encoder_inputs(paper, settings.context),
                       clip_chars(settings))
        return [(ids, types, [(0, len(ids))]) for ids, types in enc], [[i] for i in
                                                                       range(len(enc))]
    groups: list[tuple[str, list[str]]] = []  # runs of sentences under one heading
    for sec in paper.sections:
        for s in sec.sentences():
            head = _heading(sec, s)
            if not groups or groups[-1][0] != head:
                groups.append((head, []))
            groups[-1][1].append(s.text)
    units, where, first = [], [], 0
    for head, texts in groups:
        for unit, idx in _windows(tokenizer, head, texts, settings):
            units.append(unit)
            where.append([first + i for i in idx])
        first += len(texts)
    return units, where


def _windows(tokenizer, head: str, texts: Sequence[str], settings: EncoderSettings):
    """Pack consecutive sentences after ``[CLS] heading [SEP]`` into windows of at most
    ``window_tokens`` pieces; yields ``(unit, sentence indices)``."""
    cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    limit = clip_chars(settings)
    encode = [e.ids for e in tokenizer.encode_batch([t[:limit] for t in (head, *texts)],
                                                    add_special_tokens=False)]
    room = settings.window_tokens - settings.sentence_tokens - 3
    prefix = [cls, *encode[0][:max(0, min(32, room))], sep]
    pieces = [p[:settings.sentence_tokens] for p in encode[1:]]
    j = 0
    while j < len(pieces):
        ids = list(prefix)
        ctx = [c for c in range(max(0, j - settings.overlap), j)]
        while ctx and len(ids) + sum(len(pieces[c]) + 1 for c in ctx) + len(pieces[j]) + 1 \
                > settings.window_tokens:
            ctx.pop(0)
        for c in ctx:
            ids += [*pieces[c], sep]
        spans, idx = [], []
        while j < len(pieces) and (not spans or len(ids) + len(pieces[j]) + 1
                                   <= settings.window_tokens):
            start = len(ids)
            ids += [*pieces[j], sep]
            # an empty sentence is read as its separator
            spans.append((start, start + max(1, len(pieces[j]))))
            idx.append(j)
            j += 1
        types = [0] * len(prefix) + [1] * (len(ids) - len(prefix))
        yield (ids, types, spans), idx


#: One tokenised input: (word-piece ids, token types), both with [CLS] and [SEP]s.
Encoded = tuple[list[int], list[int]]


def tokenize(tokenizer, inputs: Sequence[tuple[str, str | None]],
             limit: int | None = None) -> list[Encoded]:
    """Encode ``(sentence, heading)`` pairs; the heading is the first segment. Each text
    is first cut to ``limit`` characters (None: not cut; see :func:`clip_chars`)."""
    pairs = [(h[:limit], s[:limit]) if h is not None else s[:limit] for s, h in inputs]
    return [(e.ids, e.type_ids) for e in tokenizer.encode_batch(pairs)] if pairs else []
