import duckdb
import pytest

from tracewh.quoting import glob_escape, quote_ident, quote_literal


@pytest.mark.parametrize("name", ["plain", 'we"ird', "with space", "user", "day=1", "ü"])
def test_quoted_identifier_round_trips_through_duckdb(name):
    con = duckdb.connect()
    (got,) = con.execute(f"SELECT 1 AS {quote_ident(name)}").description[0][:1]
    assert got == name


@pytest.mark.parametrize("text", ["it's", "a''b", "/tmp/x y/z", "semi;colon", "back\\slash"])
def test_quoted_literal_round_trips_through_duckdb(text):
    con = duckdb.connect()
    assert con.execute(f"SELECT {quote_literal(text)}").fetchone() == (text,)


def test_nul_bytes_are_refused():
    with pytest.raises(ValueError):
        quote_literal("a\x00b")
    with pytest.raises(ValueError):
        quote_ident("a\x00b")


def test_glob_escape_reads_a_folder_with_brackets_literally(tmp_path):
    folder = tmp_path / "odd[1]*"
    folder.mkdir()
    (folder / "x.csv").write_text("a\n1\n")
    con = duckdb.connect()
    pattern = quote_literal(f"{glob_escape(folder)}/*.csv")
    assert con.execute(f"SELECT count(*) FROM read_csv({pattern})").fetchone() == (1,)
