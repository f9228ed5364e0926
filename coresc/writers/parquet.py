"""Parquet: one row per sentence, for analysis (duckdb, pandas, Spark, Polars).

Columns (:data:`COLUMNS`): the paper and sentence ids; the provenance fields
(:mod:`~coresc.writers.provenance`: ``pmcid``, ``pmid``, ``doi``, ``version``,
``license``, ``retracted``, ``source_format``, ``journal``, ``year``, ``model``,
``model_version``, ``coresc_version``; null where the paper has none); where the
sentence sits (``section``, ``section_type``, ``zone``, ``section_index``,
``paragraph``, ``position`` (0-based, in reading order) and the paper's
``n_sentences``); ``text``; the primary ``label`` and its ``score``, the ``secondary``
labels and their ``secondary_scores``, a label ``--min-score`` kept back
(``withheld``, ``withheld_score``) and the ``gold`` labels.

A batch streams into it: each paper's rows travel as JSON lines (the part a worker
writes, like JSONL's), and :class:`ParquetSink` turns them into row groups of about
:data:`ROW_GROUP_ROWS` rows appended to the one file, so a run over a million papers
holds one row group in memory, never the whole table. pyarrow is the ``parquet`` extra.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator, Sequence
from typing import IO, Any

from ..document import Paper
from ..extras import require
from .provenance import PROVENANCE_KEYS, provenance

#: Rows per row group (about 30-60 MB of sentences before compression).
ROW_GROUP_ROWS = 100_000
SCORE_DECIMALS = 4

#: Column -> Arrow type name (see :func:`schema`), in file order.
COLUMNS: dict[str, str] = {
    "paper": "string", "sid": "string",
    "pmcid": "string", "pmid": "string", "doi": "string", "version": "string",
    "license": "string", "retracted": "bool", "source_format": "string",
    "journal": "string", "year": "int32", "model": "string", "model_version": "string",
    "coresc_version": "string",
    "section": "string", "section_type": "string", "zone": "string",
    "section_index": "int32", "paragraph": "int32", "position": "int32",
    "n_sentences": "int32", "text": "string",
    "label": "string", "score": "float64", "secondary": "list<string>",
    "secondary_scores": "list<float64>", "withheld": "string", "withheld_score": "float64",
    "gold": "list<string>",
}
_TEXT_KEYS = tuple(k for k in PROVENANCE_KEYS if COLUMNS[k] == "string")


def sentence_rows(paper: Paper) -> Iterator[dict[str, Any]]:
    """The paper's rows (see the module docstring), in reading order."""
    prov = _provenance_columns(paper)
    n = len(paper)
    position = paragraph = 0
    for index, sec in enumerate(paper.sections):
        for para in sec.paragraphs:
            for sent in para.sentences:
                yield {"paper": paper.id, "sid": sent.sid, **prov,
                       "section": sec.heading, "section_type": sec.type, "zone": sent.zone,
                       "section_index": index, "paragraph": paragraph, "position": position,
                       "n_sentences": n, "text": sent.text, **_labels(sent)}
                position += 1
            paragraph += bool(para.sentences)


def _provenance_columns(paper: Paper) -> dict[str, Any]:
    prov = provenance(paper)
    row = {k: str(prov[k]) if k in prov else None for k in (*_TEXT_KEYS, "coresc_version")}
    retracted = prov.get("retracted")
    row["retracted"] = None if retracted is None else _truth(retracted)
    row["year"] = _year(prov.get("year"))
    return row


def _truth(value: Any) -> bool:
    return value if isinstance(value, bool) else str(value).strip().lower() in (
        "1", "true", "yes", "y")


def _year(value: Any) -> int | None:
    try:
        return int(str(value).strip()[:4])
    except (TypeError, ValueError):
        return None


def _labels(sent) -> dict[str, Any]:
    pred = sent.pred
    return {"label": pred[0].label if pred else None,
            "score": round(pred[0].score, SCORE_DECIMALS) if pred else None,
            "secondary": [p.label for p in pred[1:]],
            "secondary_scores": [round(p.score, SCORE_DECIMALS) for p in pred[1:]],
            "withheld": sent.withheld.label if sent.withheld else None,
            "withheld_score": round(sent.withheld.score, SCORE_DECIMALS)
            if sent.withheld else None,
            "gold": sent.gold_codes}


def parquet_part(paper: Paper, with_pred: bool | None = None,
                 with_withheld: bool | None = None) -> str:
    """One paper's rows as JSON lines: what a worker hands on to :class:`ParquetSink`."""
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in sentence_rows(paper))


def parquet_header(with_pred: bool = True, with_withheld: bool = False) -> str:
    """Nothing: the file's schema is written by :class:`ParquetSink`."""
    return ""


def schema():
    """The file's Arrow schema (pyarrow imported here: it is an extra)."""
    import pyarrow as pa

    types = {"string": pa.string(), "bool": pa.bool_(), "int32": pa.int32(),
             "float64": pa.float64(), "list<string>": pa.list_(pa.string()),
             "list<float64>": pa.list_(pa.float64())}
    return pa.schema([(name, types[kind]) for name, kind in COLUMNS.items()])


class ParquetSink:
    """A Parquet file written from parts of JSON-lines rows, a row group at a time.

    Takes the arguments of :class:`~coresc.writers.streams.StreamSink` (the header is
    empty for Parquet).
    """

    def __init__(self, writer: Any, fh: IO[bytes], header: bytes = b"") -> None:
        require("parquet")
        import pyarrow.parquet as pq

        self._schema = schema()
        self._file = pq.ParquetWriter(fh, self._schema, compression="zstd")
        self._pending: list = []
        self._rows = 0

    def add(self, part: bytes) -> None:
        """Add one input's rows; a row group is written once enough have come."""
        if not part:
            return
        from pyarrow import json as pajson

        table = pajson.read_json(io.BytesIO(part), parse_options=pajson.ParseOptions(
            explicit_schema=self._schema, unexpected_field_behavior="error"))
        self._pending.append(table.select(self._schema.names).cast(self._schema))
        self._rows += table.num_rows
        if self._rows >= ROW_GROUP_ROWS:
            self._flush()

    def _flush(self) -> None:
        import pyarrow as pa

        if self._pending:
            self._file.write_table(pa.concat_tables(self._pending),
                                   row_group_size=max(self._rows, 1))
        self._pending, self._rows = [], 0

    def close(self) -> None:
        """Write the last row group and the file's footer."""
        self._flush()
        self._file.close()


def write_parquet(papers: Sequence[Paper], fh: IO[bytes]) -> None:
    """Write every sentence of ``papers`` as one Parquet file to the binary ``fh``."""
    sink = ParquetSink(None, fh)
    for paper in papers:
        sink.add(parquet_part(paper).encode("utf-8"))
    sink.close()
