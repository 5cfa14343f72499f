"""The strict fast path (tracewh.ingestion.fastpath) against the exact path: the same Parquet (files, types,
rows in order, seq, day), the same meta.ingests, meta.tables and meta.rejects, on the real held-out
parts, the bundled samples, synthetic traces and generated rows; a file with any line the exact
path would reject or might read otherwise is refused whole and converted by the exact path.
And the ingest's progress: input bytes reported while a file is read, adding up to the sizes."""

from __future__ import annotations

import gzip
import io
import os
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest
from conftest import SAMPLE, SAMPLE_ALIBABA, task_row
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tracewh import ingestion as ingest
from tracewh import synth
from tracewh.home import Home
from tracewh.ingestion import fastpath
from tracewh.options import IngestOptions
from tracewh.quoting import quote_literal

REALDATA = Path("/work/shared/realdata/google2011")
ID = re.compile(r"\d{8}T\d{6}-[0-9a-f]{6}")


def rows(con: duckdb.DuckDBPyConnection, sql: str) -> pa.Table:
    """The rows of ``sql`` as an Arrow table: two are equal when their types and every value are
    (Table.equals: exact, as Python's tuples; a NaN equals nothing), and a few hundred thousand
    rows convert in a fraction of the time as Python tuples."""
    return con.sql(sql).to_arrow_table()


def state(home: Home, trace: str) -> dict:
    """Everything an ingest leaves that a reader can see, with the ingest id taken out of names."""
    con = duckdb.connect(str(home.catalog), read_only=True)
    try:
        out: dict = {}
        tables = [
            t
            for (t,) in con.execute(
                "SELECT table_name FROM meta.tables WHERE trace = $t ORDER BY 1", {"t": trace}
            ).fetchall()
        ]
        for t in tables:
            folder = home.root / "parquet" / trace / t
            files = sorted(p for p in folder.resolve().rglob("*.parquet"))
            listed = "[" + ", ".join(quote_literal(str(p)) for p in files) + "]"
            src = f"read_parquet({listed}, hive_partitioning = true)"
            out[t] = {
                "files": [ID.sub("ID", str(p.relative_to(folder.resolve()))) for p in files],
                "schema": con.execute(f"DESCRIBE SELECT * FROM {src}").fetchall(),
                "rows": rows(con, f"SELECT * FROM {src} ORDER BY seq"),
                "per_file": con.execute(
                    f"SELECT regexp_replace(filename, '.*/', ''), count(*), min(seq), max(seq) "
                    f"FROM read_parquet({listed}, filename = true) "
                    "GROUP BY ALL ORDER BY 1"
                ).fetchall(),
                "view": rows(con, f"SELECT * FROM {trace}.{t} ORDER BY ALL"),
            }
            out[t]["per_file"] = [(ID.sub("ID", f), *rest) for f, *rest in out[t]["per_file"]]
        out["ingests"] = con.execute(
            "SELECT table_name, cell, file, size_bytes, sha256, sha256_verified, rows_read, rows_written, "
            "rows_rejected, duplicate_lines, mode, is_current FROM meta.ingests WHERE trace = $t "
            "ORDER BY ALL",
            {"t": trace},
        ).fetchall()
        # bytes differ: the fast path delta-codes times and seq (the values are the same)
        out["tables"] = con.execute(
            "SELECT * EXCLUDE (data_dir, updated, bytes) FROM meta.tables WHERE trace = $t ORDER BY ALL",
            {"t": trace},
        ).fetchall()
        # the derived tables built from the new task events, through their views
        for (name,) in con.execute(
            "SELECT name FROM meta.derived WHERE trace = $t ORDER BY 1", {"t": trace}
        ).fetchall():
            out[f"derived.{name}"] = rows(con, f"SELECT * FROM derived.{name} ORDER BY ALL")
        out["rejects"] = con.execute(
            "SELECT * EXCLUDE (ingest_id) FROM meta.rejects WHERE trace = $t ORDER BY ALL", {"t": trace}
        ).fetchall()
        return out
    finally:
        con.close()


def both(tmp_path: Path, monkeypatch, trace: str, src: Path, **kw) -> tuple[list, dict, dict]:
    """Ingest ``src`` into two homes, fast path first and exact path only; the fast run's files."""
    states, fast_files = [], []
    for mode in ("auto", "exact"):
        monkeypatch.setenv(fastpath.MODE_VARIABLE, mode)
        home = Home.resolve(tmp_path / f"home-{mode}")
        result = ingest.ingest(home, trace, src, **kw)
        states.append(state(home, trace))
        if mode == "auto":
            fast_files = result.files
        else:
            assert not any(f.fast for f in result.files)
    return fast_files, states[0], states[1]


@pytest.mark.skipif(not REALDATA.is_dir(), reason="the real held-out parts are not on this machine")
def test_real_parts_take_the_fast_path_and_give_what_the_exact_path_gives(tmp_path, monkeypatch):
    files, fast, exact = both(tmp_path, monkeypatch, "google2011", REALDATA)
    assert [f.fast for f in files] == [True] * len(files) and files
    assert fast == exact


def test_the_samples_give_what_the_exact_path_gives(tmp_path, monkeypatch):
    files, fast, exact = both(tmp_path / "g", monkeypatch, "google2011", SAMPLE)
    assert all(f.fast for f in files)
    assert fast == exact
    files, fast, exact = both(tmp_path / "a", monkeypatch, "alibaba2018", SAMPLE_ALIBABA)
    assert any(f.fast for f in files)
    assert fast == exact


@pytest.mark.parametrize(("trace", "kw"), [("google2011", {"parts": 3}), ("alibaba2018", {"form": "csv"})])
def test_synthetic_traces_give_what_the_exact_path_gives(tmp_path, monkeypatch, trace, kw):
    src = tmp_path / "src"
    synth.synth(trace, src, scale=0.0002, workers=1, **kw)
    files, fast, exact = both(tmp_path, monkeypatch, trace, src)
    assert all(f.fast for f in files)
    assert fast == exact


def job_part(tmp_path: Path, lines: list[bytes], name: str = "part-00000-of-00001.csv.gz") -> Path:
    src = tmp_path / "src"
    (src / "job_events").mkdir(parents=True)
    body = b"".join(lines)
    path = src / "job_events" / name
    path.write_bytes(gzip.compress(body) if name.endswith(".gz") else body)
    return src


GOOD = b"5000000,,42,0,u,1,n,l\n"
# Each is refused by the fast path; the exact path rejects most, reads the others (a CRLF line end).
ODD_LINES = [
    b"5000001,,1.5,0,u,1,n,l\n",
    b"5000001,,1e3,0,u,1,n,l\n",
    b"5000001,,1_000,0,u,1,n,l\n",
    b"5000001,,0x10,0,u,1,n,l\n",
    b"5000001,,0X10,0,u,1,n,l\n",  # pyarrow's integer parse reads hex: no integer is parsed where an x is
    b"5000001,,+8,0,u,1,n,l\n",
    b"5000001,, 9,0,u,1,n,l\n",
    b"5000001,,9 ,0,u,1,n,l\n",
    b"5000001,,9,0,u,1.0,n,l\n",
    b"-5000001,,9,0,u,1,n,l\n",
    b"-0,,9,0,u,1,n,l\n",  # a time has no minus sign, also on zero
    b"18446744073709551616,,9,0,u,1,n,l\n",
    b"5000001,,9223372036854775808,0,u,1,n,l\n",
    b"5000001,,9,2147483648,u,1,n,l\n",
    b"5000001,,,0,u,1,n,l\n",
    b",,9,0,u,1,n,l\n",
    b"5000001,,9,0,u,1,n\n",
    b"5000001,,9,0,u,1,n,l,x\n",
    b"\n",
    b"5000001,,9,0,u,1,n,l\r\n",
    b"5000001,,9,0,u\r,1,n,l\n",
    b"5000001,,9,0,u\x00,1,n,l\n",
    b"5000001,,9,0,u\xff\xfe,1,n,l\n",
]


# a plain .csv goes to DuckDB directly unless it holds a CR: the line-end cases in both forms
CASES = (
    [(odd, ".csv.gz") for odd in ODD_LINES]
    + [(odd, ".csv") for odd in ODD_LINES if b"\r" in odd]
    + [(b"\n", ".csv"), (b"5000001,,1.5,0,u,1,n,l\n", ".csv")]
)


def test_files_with_one_odd_line_each_are_refused_and_give_what_the_exact_path_gives(tmp_path, monkeypatch):
    # one ingest of every case (a part each) and a good part: each file is refused alone
    src = tmp_path / "src"
    (src / "job_events").mkdir(parents=True)
    for i, (odd, suffix) in enumerate([*CASES, (GOOD, ".csv.gz")]):
        body = GOOD + odd + GOOD.replace(b"42", b"43")
        path = src / "job_events" / f"part-{i:05d}-of-00500{suffix}"
        path.write_bytes(gzip.compress(body) if suffix.endswith(".gz") else body)
    files, fast, exact = both(tmp_path, monkeypatch, "google2011", src)
    assert [f.name for f in files if f.fast] == [f"part-{len(CASES):05d}-of-00500.csv.gz"]
    assert len(files) == len(CASES) + 1
    assert fast == exact
    assert len(fast["rejects"]) >= len(ODD_LINES) - 2  # a CRLF line and a blank line are no rejects


TASK_ODD = [
    task_row(700, 1, 0, 0, diff="2"),
    task_row(700, 1, 0, 0, diff="yes"),
    task_row(700, 1, 0, 0, diff="True"),
    task_row(700, 1, 0, 0, cpu="NaN"),
    task_row(700, 1, 0, 0, cpu="inf"),
    task_row(700, 1, 0, 0, cpu="1e400"),
    task_row(700, 1, 0, 0, cpu=" 0.5"),
    task_row(700, 1, 0, 0, cpu="0.5 "),
    task_row(700, 1, 0, 0, cpu="0_5"),
    task_row(700, 1, 0, 0, cpu="0x1p3"),
    "\ufeff" + task_row(700, 1, 0, 0),
]
# Floats in spellings beyond -?digits[.digits][e[-]digits] that DuckDB reads to the same double:
# the fast path takes them (test_every_float_spelling_the_fast_path_takes_reads_alike_in_duckdb).
TASK_TAKEN = [
    task_row(700, 1, 0, 0, cpu="1."),
    task_row(700, 1, 0, 0, cpu=".5"),
    task_row(700, 1, 0, 0, cpu="+0.5"),
    task_row(700, 1, 0, 0, cpu="1E+2"),
    # a blank in a text field: the part's numbers are read as text, then checked and cast
    task_row(700, 1, 0, 0, user="a b"),
    task_row(700, 1, 0, 0, user="a\tb", machine="-0"),
]


def test_task_parts_with_an_odd_float_or_boolean_are_refused_and_give_what_the_exact_path_gives(
    tmp_path, monkeypatch
):
    src = tmp_path / "src" / "task_events"
    src.mkdir(parents=True)
    for i, odd in enumerate(TASK_ODD + TASK_TAKEN):
        lines = [odd, task_row(800, 1, 1, 0)] if odd.startswith("\ufeff") else [task_row(600, 1, 0, 0), odd]
        part = src / f"part-{i + 3:05d}-of-00500.csv.gz"
        part.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    files, fast, exact = both(tmp_path, monkeypatch, "google2011", src.parent)
    assert [f.fast for f in files] == [False] * len(TASK_ODD) + [True] * len(TASK_TAKEN)
    assert fast == exact


# Base64 user names, as the 2011 trace writes them: an x or X in nearly every block of a part.
USER_X = "xX0x+/9Xx="
# Every lenient integer spelling DuckDB's cast takes (or pyarrow's integer parse), in each kind of
# integer column of task_events (time: unsigned; ids: signed; classes: INTEGER), beside users
# holding x: the exact path rejects each line, so the fast path must refuse each part.
TASK_LENIENT = [
    *(task_row(700, 1, 0, 0, user=USER_X, machine=v) for v in ("1.5", "1e3", "1_000", "0x10", "0X10")),
    *(
        task_row(700, 1, 0, 0, user=USER_X, machine=v)
        for v in ("+8", " 9", "9 ", "\t9", "9223372036854775808")
    ),
    *(task_row(700, v, 0, 0, user=USER_X) for v in ("0x1", "0XFF", "0xffffffffffffffff", "+1", "1e0")),
    *(task_row(700, 1, v, 0, user=USER_X) for v in ("0x0", "1_0", "1.0")),
    *(task_row(v, 1, 0, 0, user=USER_X) for v in ("0x2BC", "-0", "-700", "+700", "0x7fffffffffffffff")),
    task_row(700, 1, 0, 0, user=USER_X, sched="0x1"),
    task_row(700, 1, 0, 0, user=USER_X, prio="0X0"),
    task_row(700, 1, 0, 0, user=USER_X, missing="0x0"),
    task_row(700, 1, 0, 0, user=USER_X, diff="0x1"),
    task_row(700, 1, 0, 0, user=USER_X, cpu="0x1p-3"),
]


def test_lenient_integers_beside_text_with_an_x_are_refused_and_give_what_the_exact_path_gives(
    tmp_path, monkeypatch
):
    # one part per spelling, each a good line (users with x, typed integers) and the odd one
    src = tmp_path / "src" / "task_events"
    src.mkdir(parents=True)
    good = task_row(600, 1, 0, 0, user=USER_X, machine="17")
    for i, odd in enumerate(TASK_LENIENT):
        part = src / f"part-{i:05d}-of-00500.csv.gz"
        part.write_bytes(gzip.compress(f"{good}\n{odd}\n".encode()))
    # and parts the fast path takes whole: an x in every text field, none elsewhere
    taken = [good, task_row(601, 2, 3, 1, user="XXXX", machine="0", prio="10"), task_row(602, 3, 0, 0)]
    (src / "part-00100-of-00500.csv.gz").write_bytes(gzip.compress(("\n".join(taken) + "\n").encode()))
    (src / "part-00101-of-00500.csv").write_text("\n".join(taken))
    files, fast, exact = both(tmp_path, monkeypatch, "google2011", src.parent)
    assert [f.fast for f in files] == [False] * len(TASK_LENIENT) + [True, True]
    assert [f.rows_rejected for f in files] == [1] * len(TASK_LENIENT) + [0, 0]
    assert fast == exact


def test_an_x_outside_the_text_fields_is_seen_wherever_the_blocks_and_pieces_end(tmp_path, monkeypatch):
    # blocks of ~2 lines and pieces of a few bytes: the x of a hex id in the last line, the first,
    # or beside many in the users, is counted whichever piece and block it falls in
    lines = [task_row(600 + i, 1, i, 0, user=USER_X * (i % 3)) for i in range(12)]
    src = tmp_path / "src" / "task_events"
    src.mkdir(parents=True)
    for part, at in ((1, 0), (2, 5), (3, 11)):
        odd = list(lines)
        odd[at] = task_row(600 + at, "0x1", at, 0, user=USER_X)
        (src / f"part-{part:05d}-of-00500.csv.gz").write_bytes(
            gzip.compress(("\n".join(odd) + "\n").encode())
        )
    (src / "part-00004-of-00500.csv.gz").write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    monkeypatch.setattr(fastpath, "BLOCK", 2 * len(lines[4]))
    monkeypatch.setattr(fastpath, "PIECE", 29)
    monkeypatch.setattr(fastpath, "READ_CHUNK", 7)
    files, fast, exact = both(tmp_path, monkeypatch, "google2011", src.parent)
    assert [f.fast for f in files] == [False, False, False, True]
    assert [f.rows_rejected for f in files] == [1, 1, 1, 0]
    assert fast == exact


def test_duplicate_lines_are_counted_as_the_exact_path_counts_them_across_batches(tmp_path, monkeypatch):
    # batches of ~4 lines: duplicates inside a batch and across its edges; two empty fields are
    # alike, an empty field beside a value is not; the same value spelled twice is not
    a, b = task_row(600, 1, 0, 0), task_row(600, 1, 1, 0)
    lines = [a, a, a, b, b, task_row(600, 1, 1, 0, machine="5"), task_row(600, 1, 1, 0, machine="5")]
    lines += [task_row(601, 2, 0, 0, cpu="0.5"), task_row(601, 2, 0, 0, cpu="0.50"), b, b, b]
    lines += [task_row(602, 3, i, 0) for i in range(9)] + [a, a]
    want = 2 + 1 + 1 + 2 + 1  # by hand: the repeats of a, b, the machine row, b, a
    src = tmp_path / "src" / "task_events"
    src.mkdir(parents=True)
    (src / "part-00004-of-00500.csv.gz").write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    (src / "part-00005-of-00500.csv").write_text("\n".join(lines))  # no line end after the last
    monkeypatch.setattr(fastpath, "BLOCK", 4 * len(a) + 8)
    files, fast, exact = both(tmp_path, monkeypatch, "google2011", src.parent)
    assert [f.fast for f in files] == [True, True]
    assert [f.duplicate_lines for f in files] == [want, want]
    assert fast == exact


def test_blocks_joined_from_small_pieces_and_lines_longer_than_a_block_give_what_the_exact_path_gives(
    tmp_path, monkeypatch
):
    # the inflate's pieces are a few bytes, blocks a few lines: lines split between pieces, a
    # line several blocks long (joined again as pieces come), repeats across block edges
    a, b = task_row(600, 1, 0, 0), task_row(600, 1, 1, 0)
    long = task_row(601, 2, 0, 0, user="u" * (12 * len(a)))
    lines = [a, a, b, long, long, b, *(task_row(602, 3, i, 0) for i in range(7)), a, a, long]
    want = 1 + 1 + 1  # by hand: a after a, long after long, a after a
    src = tmp_path / "src" / "task_events"
    src.mkdir(parents=True)
    body = "\n".join(lines)
    (src / "part-00004-of-00500.csv.gz").write_bytes(gzip.compress((body + "\n").encode()))
    (src / "part-00005-of-00500.csv").write_text(body)  # no line end after the last
    monkeypatch.setattr(fastpath, "BLOCK", 3 * len(a))
    monkeypatch.setattr(fastpath, "PIECE", 37)
    monkeypatch.setattr(fastpath, "READ_CHUNK", 11)
    files, fast, exact = both(tmp_path, monkeypatch, "google2011", src.parent)
    assert [f.fast for f in files] == [True, True]
    assert [f.duplicate_lines for f in files] == [want, want]
    assert [f.rows_written for f in files] == [len(lines), len(lines)]
    assert fast == exact


FLOAT_SPELLINGS = [
    *("1", "-1", "+1", ".5", "-.5", "+.5", "1.", "-1.", "1.e5", "1e5", "1E5", "1e+5", "1e-5", "-0", "-0.0"),
    *("01.50", "1e-400", "4.9e-324", "2.2250738585072011e-308", "1.7976931348623157e308"),
    *("0.1000000000000000055511151231257827021181583404541015625", "123456789012345678901234567890"),
    *("1.7976931348623159e308", "inf", "-Infinity", "nan", " 1", "1 ", "1_0", "0x10", "1e", ".", "-"),
    *("1.5.", "1d5", "0x1p3", "1.5e+", "\u0661", "\t1", "++1", "--1", "1e5.0", "e5"),
]


def test_every_float_spelling_the_fast_path_takes_reads_alike_in_duckdb(tmp_path):
    """The fast path takes a float in whatever spelling pyarrow's cast reads to a finite double;
    DuckDB's CSV reader (the exact path's, with its options) must read each to the same double."""
    import pyarrow as pa
    import pyarrow.compute as pc

    taken = []
    for s in FLOAT_SPELLINGS:
        try:
            value = pc.cast(pa.array([s]), pa.float64())[0].as_py()
        except pa.ArrowInvalid:
            continue
        if value == value and abs(value) != float("inf"):
            taken.append((s, value))
    assert {s for s, _ in taken} >= {"+.5", "1.", "1e+5", "-0"} and " 1" not in dict(taken)
    path = tmp_path / "f.csv"
    path.write_text("".join(f"{i},{s}\n" for i, (s, _) in enumerate(taken)))
    read = dict(
        duckdb.execute(
            f"SELECT i, x FROM read_csv({quote_literal(path)}, columns = {{'i': 'INTEGER', 'x': 'DOUBLE'}}, "
            "header = false, auto_detect = false, delim = ',', quote = '', escape = '', new_line = '\\n')"
        ).fetchall()
    )
    got = [(s, read.get(i)) for i, (s, _) in enumerate(taken)]
    assert got == taken
    assert [str(v) for _, v in got] == [str(v) for _, v in taken]  # -0.0 stays -0.0


def test_pyarrows_csv_float_and_boolean_parses_take_what_the_cast_and_the_four_spellings_take():
    """In a block without a blank or a tab the fast path parses floats and booleans with pyarrow's
    CSV reader instead of casting text: it must take exactly what the cast takes (pinned against
    DuckDB above), and of booleans exactly 0, 1, true, false."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    def parsed(s: str, type_: pa.DataType) -> object:
        options = pacsv.ConvertOptions(
            column_types={"a": type_},
            null_values=[""],
            true_values=["1", "true"],
            false_values=["0", "false"],
        )
        try:
            table = pacsv.read_csv(
                io.BytesIO(f"{s}\n".encode()),
                read_options=pacsv.ReadOptions(column_names=["a"]),
                parse_options=pacsv.ParseOptions(quote_char=False),
                convert_options=options,
            )
        except pa.ArrowInvalid:
            return "refused"
        return repr(table.column(0)[0].as_py())

    def cast(s: str) -> object:
        try:
            return repr(pc.cast(pa.array([s]), pa.float64())[0].as_py())
        except pa.ArrowInvalid:
            return "refused"

    spellings = [s for s in FLOAT_SPELLINGS if " " not in s and "\t" not in s]
    assert [parsed(s, pa.float64()) for s in spellings] == [cast(s) for s in spellings]
    words = ["0", "1", "true", "false", "True", "TRUE", "t", "f", "yes", "no", "01", "2", "-0"]
    assert [w for w in words if parsed(w, pa.bool_()) != "refused"] == ["0", "1", "true", "false"]


def test_a_damaged_gzip_is_refused_and_fails_as_on_the_exact_path(tmp_path, monkeypatch):
    src = job_part(tmp_path, [GOOD] * 5000)
    part = next((src / "job_events").iterdir())
    data = bytearray(part.read_bytes())
    data[-6] ^= 0xFF  # the CRC-32 in the trailer
    part.write_bytes(bytes(data))
    errors = []
    for mode in ("auto", "exact"):
        monkeypatch.setenv(fastpath.MODE_VARIABLE, mode)
        with pytest.raises(ingest.InputError) as e:
            ingest.ingest(Home.resolve(tmp_path / f"home-{mode}"), "google2011", src)
        errors.append(str(e.value))
    assert errors[0] == errors[1] and "damaged" in errors[0]


# Values in the spellings the fast path takes, at their edges: the exact path must read them alike.
# times: in the window, or at and over 2^63-1 (clamped); a time in the window beyond year 9999
# makes the ingest's meta.tables timestamp overflow on either path (a separate defect)
unsigned = st.one_of(st.integers(0, 2**44), st.sampled_from([0, 2**63 - 1, 2**63, 2**64 - 1]))
signed = st.integers(-(2**63), 2**63 - 1)
int32 = st.integers(-(2**31), 2**31 - 1)
floats = st.floats(min_value=-1e300, max_value=1e300, width=64)  # printed short, still finite
text = st.text(
    alphabet=st.characters(blacklist_characters=",\n\r\x00", blacklist_categories=("Cs",)), max_size=12
)


def float_text(draw, x: float) -> str:
    form = draw(st.sampled_from(["repr", "g", "e", "fixed", "zeros"]))
    s = {"repr": repr(x), "g": f"{x:.6g}", "e": f"{x:.3e}", "fixed": f"{x:.12f}", "zeros": f"{x:.17g}"}[form]
    return s.replace("e+", "e")  # the fast path's exponent has no plus sign


@st.composite
def task_lines(draw) -> list[str]:
    lines = []
    for _ in range(draw(st.integers(1, 30))):
        opt = lambda s: draw(st.one_of(st.just(""), s.map(str)))  # noqa: E731
        fl = lambda: draw(st.one_of(st.just(""), floats.map(lambda x: float_text(draw, x))))  # noqa: E731
        values = [
            str(draw(unsigned)),
            opt(int32),
            str(draw(signed)),
            str(draw(signed)),
            opt(signed),
            str(draw(int32)),
            draw(text),
            opt(int32),
            str(draw(int32)),
            fl(),
            fl(),
            fl(),
            draw(st.sampled_from(["", "0", "1", "true", "false"])),
        ]
        lines.append(",".join(values))
    return lines


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(task_lines(), min_size=1, max_size=3))
def test_any_rows_in_the_fast_spellings_give_what_the_exact_path_gives(monkeypatch, parts):
    # several parts per example: one ingest (and one derived build) each way covers them all
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "src" / "task_events"
        src.mkdir(parents=True)
        for i, lines in enumerate(parts):
            body = ("\n".join(lines) + "\n").encode()
            (src / f"part-{i + 7:05d}-of-00500.csv.gz").write_bytes(gzip.compress(body))
        files, fast, exact = both(Path(tmp), monkeypatch, "google2011", src.parent)
        assert len(files) == len(parts) and all(f.fast for f in files)
        assert fast == exact


# ---- progress


class Recorder(ingest.Progress):
    def __init__(self) -> None:
        self.events: list[tuple] = []

    def begin(self, files: int, total_bytes: int) -> None:
        self.events.append(("begin", total_bytes))

    def phase(self, text: str) -> None:
        self.events.append(("phase", text))

    def advance(self, nbytes: int) -> None:
        self.events.append(("advance", nbytes))

    def file_done(self, result: ingest.FileResult) -> None:
        self.events.append(("file_done", result.name))

    def names(self) -> list[str]:
        return [e[1] for e in self.events if e[0] == "phase"]

    def within(self, name: str) -> list[tuple]:
        """The events after the (first) start of a phase, up to the next phase."""
        at = self.events.index(("phase", name))
        end = next((i for i in range(at + 1, len(self.events)) if self.events[i][0] == "phase"), None)
        return self.events[at + 1 : end]


def big_task_part(folder: Path) -> Path:
    """A task_events part shaped as the real ones, several MB of gzip (random user names compress
    poorly), read in 1 MB chunks."""
    lines = [task_row(600 + i, i // 7, i % 7, 0, user=os.urandom(24).hex()) for i in range(100_000)]
    big = folder / "part-00001-of-00500.csv.gz"
    big.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode(), compresslevel=1))
    assert big.stat().st_size > 3 << 20
    return big


@pytest.mark.usefixtures("ingest_path")
def test_progress_counts_input_bytes_while_a_large_file_is_read_and_ends_at_the_sizes(tmp_path):
    src = tmp_path / "src" / "task_events"
    src.mkdir(parents=True)
    big = big_task_part(src)
    small = src / "part-00002-of-00500.csv.gz"
    small.write_bytes(gzip.compress((task_row(90_000_000, 1, 0, 0) + "\n").encode()))
    sizes = big.stat().st_size + small.stat().st_size
    rec = Recorder()
    result = ingest.ingest(
        Home.resolve(tmp_path / "home"), "google2011", src.parent, IngestOptions(workers=1), progress=rec
    )
    # task_events feed the derived tables, built inside the commit (which resumes after them)
    assert rec.names() == [
        "hashing",
        "converting",
        "compacting",
        "counting",
        "committing",
        "deriving",
        "committing",
    ]
    for name in ("hashing", "converting"):
        events = rec.within(name)
        assert events[0] == ("begin", sizes)
        assert sum(n for kind, n in events if kind == "advance") == sizes
    converting = rec.within("converting")
    first_done = next(i for i, e in enumerate(converting) if e[0] == "file_done")
    # the large file is converted first (one worker, in order): its bytes move before it ends
    assert converting[first_done] == ("file_done", big.name)
    assert sum(1 for kind, _ in converting[:first_done] if kind == "advance") >= 3
    # the result times each phase once, in the order of ingest.PHASES
    assert [p.name for p in result.phases] == list(ingest.PHASES)
    assert all(p.seconds >= 0 and p.cpu_seconds >= 0 for p in result.phases)
    assert sum(p.seconds for p in result.phases) <= result.seconds


def test_progress_of_an_archive_moves_with_its_compressed_bytes(tmp_path):
    # an Alibaba table as published: one CSV member in a .tar.gz (the exact path streams it);
    # random machine names compress poorly: an archive of several MB
    lines = [f"m_{os.urandom(32).hex()},{i * 10},219,17,96,100,USING" for i in range(80_000)]
    text = ("\n".join(lines) + "\n").encode()
    src = tmp_path / "src"
    src.mkdir()
    archive = src / "machine_meta.tar.gz"
    with tarfile.open(archive, "w:gz", compresslevel=1) as tar:
        info = tarfile.TarInfo("machine_meta.csv")
        info.size = len(text)
        tar.addfile(info, io.BytesIO(text))
    assert archive.stat().st_size > 3 << 20
    rec = Recorder()
    result = ingest.ingest(
        Home.resolve(tmp_path / "home"), "alibaba2018", src, IngestOptions(verify=False), progress=rec
    )
    assert [f.rows_written for f in result.files] == [len(lines)]
    converting = rec.within("converting")
    assert converting[0] == ("begin", archive.stat().st_size)
    assert sum(n for kind, n in converting if kind == "advance") == archive.stat().st_size
    done = converting.index(("file_done", archive.name))
    assert sum(1 for kind, _ in converting[:done] if kind == "advance") >= 3


def test_an_ingest_of_a_table_that_feeds_no_derived_table_has_no_deriving_phase(tmp_path):
    rec = Recorder()
    result = ingest.ingest(
        Home.resolve(tmp_path / "home"),
        "google2011",
        SAMPLE,
        IngestOptions(tables=["job_events"]),
        progress=rec,
    )
    assert rec.names() == ["hashing", "converting", "compacting", "counting", "committing"]
    assert [p.name for p in result.phases] == rec.names()


def test_a_forced_exact_path_is_named_and_an_unknown_one_is_a_usage_error(monkeypatch, tmp_path):
    monkeypatch.setenv(fastpath.MODE_VARIABLE, "fastest")
    with pytest.raises(ingest.UsageError, match=fastpath.MODE_VARIABLE):
        ingest.ingest(Home.resolve(tmp_path / "home"), "google2011", SAMPLE)


def test_the_fast_path_does_not_import_pandas(tmp_path):
    # pyarrow imports pandas for pa.array(), pa.scalar() and Python numbers in its compute
    # functions: ~0.5 CPU s of every ingest, which the exact path does not pay
    code = (
        "import sys, tracewh\n"
        f"r = tracewh.ingest('google2011', {str(SAMPLE)!r}, home={str(tmp_path / 'home')!r})\n"
        "assert r.files and all(f.fast for f in r.files), r.files\n"
        "print('pandas' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "False"
