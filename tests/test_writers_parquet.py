"""Parquet: one row per sentence with its provenance, written a row group at a time as a
batch streams, read back with pyarrow (and queried with duckdb, as docs/formats.md does)."""

from __future__ import annotations

import io

import pytest
from helpers import need, text_papers
from test_writers_hubs import PMC_META, hub_paper

from coresc.errors import CorescError
from coresc.writers import get_writer, write_papers
from coresc.writers.parquet import COLUMNS

pq = need("pyarrow.parquet")


def test_rows_read_back_with_pyarrow(tmp_path):
    out = tmp_path / "s.parquet"
    write_papers([hub_paper(meta=PMC_META), hub_paper("other")], "parquet", out)
    table = pq.read_table(out)
    assert table.schema.names == list(COLUMNS)
    assert table.num_rows == 14
    rows = table.to_pylist()
    first = rows[0]
    assert {k: first[k] for k in PMC_META if k != "version"} == {
        k: v for k, v in PMC_META.items() if k != "version"}
    assert first["version"] == "2" and first["paper"] == "PMC1234567"
    assert first["position"] == 0 and first["n_sentences"] == 7
    res = rows[2]
    assert (res["label"], res["score"], res["secondary"], res["secondary_scores"],
            res["gold"]) == ("Res", 0.8, ["Con", "Obs"], [0.15, 0.05], ["Res"])
    assert (res["section_type"], res["zone"], res["paragraph"]) == ("abstract", "abstract", 1)
    unlabelled = rows[5]
    assert unlabelled["label"] is None and unlabelled["withheld"] == "Bac"
    other = rows[7]
    assert other["paper"] == "other" and other["pmcid"] is None and other["year"] is None
    assert other["source_format"] == "xml" and other["retracted"] is None


def test_a_batch_appends_row_groups_to_one_file(tmp_path, monkeypatch):
    """Rows leave memory a row group at a time: a small row group size gives several."""
    import coresc.writers.parquet as parquet
    from coresc.batch import annotate_files

    monkeypatch.setattr(parquet, "ROW_GROUP_ROWS", 40)
    text_papers(tmp_path / "in", 5)
    held = []
    add = parquet.ParquetSink.add

    def watched(self, part):
        add(self, part)
        held.append(self._rows)

    monkeypatch.setattr(parquet.ParquetSink, "add", watched)
    out = tmp_path / "all.parquet"
    summary = annotate_files([tmp_path / "in"], out, to="parquet", progress="off")
    assert summary.done == 5
    meta = pq.ParquetFile(out).metadata
    assert meta.num_rows == summary.sentences
    assert meta.num_row_groups > 1
    assert max(held) < 40  # never more than a row group's rows waiting
    table = pq.read_table(out)
    assert table.column("model").to_pylist() == ["fast"] * summary.sentences
    assert table.column("label").null_count == 0
    assert sorted(set(table.column("paper").to_pylist())) == [f"p{i:03d}" for i in range(5)]


def test_parquet_never_goes_to_stdout(tmp_path, capsysbinary):
    from coresc.cli import main

    text_papers(tmp_path / "in", 1)
    assert main(["annotate", str(tmp_path / "in"), "--to", "parquet", "-q"]) == 2
    captured = capsysbinary.readouterr()
    assert captured.out == b""
    assert b"parquet is a binary file: give -o FILE.parquet" in captured.err
    assert main(["convert", str(tmp_path / "in"), "--to", "parquet"]) != 0
    assert capsysbinary.readouterr().out == b""


def test_without_pyarrow_one_line_names_the_extra(tmp_path, monkeypatch, capsys):
    import sys

    from coresc.cli import main

    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setattr("coresc.extras._importable", lambda module: module != "pyarrow")
    with pytest.raises(CorescError, match=r"'parquet'.*pip install 'coresc\[parquet\]'"):
        get_writer("parquet")
    text_papers(tmp_path / "in", 1)
    out = tmp_path / "s.parquet"
    assert main(["annotate", str(tmp_path / "in"), "--to", "parquet", "-o", str(out)]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "coresc[parquet]" in err[0]
    assert not out.exists() and not list(tmp_path.glob(".s.parquet*"))


def test_duckdb_answers_the_share_of_hypotheses_per_journal_and_year(tmp_path):
    duckdb = need("duckdb")
    papers = [hub_paper(meta=PMC_META),
              hub_paper("b", {**PMC_META, "pmcid": "PMC2", "year": 2021}),
              hub_paper("c", {**PMC_META, "pmcid": "PMC3", "journal": "Other"})]
    out = tmp_path / "s.parquet"
    write_papers(papers, "parquet", out)
    rows = duckdb.sql(f"""
        SELECT journal, year, avg((label = 'Hyp')::INT) AS hypotheses
        FROM '{out}' WHERE label IS NOT NULL GROUP BY journal, year ORDER BY ALL""").fetchall()
    assert rows == [("J Test", 2020, 1 / 6), ("J Test", 2021, 1 / 6), ("Other", 2020, 1 / 6)]


def test_serve_answers_a_parquet_file():
    from coresc.serve.work import Request, answer_request

    need("fastapi")
    from coresc.pipeline import open_model

    text = b"Copper stops biofilms. We tested it in ten strains. It worked."
    answer = answer_request(open_model("fast"), Request(data=text, name="t.txt",
                                                        to="parquet"))
    table = pq.read_table(io.BytesIO(answer.data))
    assert table.num_rows == 3 and table.column("model").to_pylist()[0] == "fast"
