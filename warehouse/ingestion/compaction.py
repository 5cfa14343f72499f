"""Parquet compaction: a few large files per partition folder instead of one small file per source part.

An ingest writes one Parquet file per (source part, day): ~0.5-3 MB each, so a whole trace
is thousands of small files, slow to list and plan (worse on Spark and object storage). This
module owns the compacted files: it merges the small files of each leaf folder (a day, a cell's
day, a table without days) of a generation into files of up to ``TARGET_BYTES``, rows in
``seq`` order (the source order), and keeps part identity: a row's part is ``seq // 2^32``
(tracewh.ingestion.readers), so a part re-ingested later is dropped from the compacted files that hold its
rows (they are rewritten without them) before its new rows come in.

Writes follow the ingest's commit protocol (tracewh.ingestion): they go only into a new
generation that no catalog names yet, under names that carry the writer's id (``compacted.<id>_<k>``,
the ingest's own name rule, so ``output_stem`` reads ``compacted``); a file merged away is only
unlinked from that new generation (a hard link of a live file: the live generation keeps its
own link). ``compact`` does the same for the tables of a live home and commits by renaming a
staged catalog, as an ingest does; interrupted anywhere, the home holds the old state or the new.
"""

from __future__ import annotations

import itertools
import shutil
from dataclasses import dataclass
from pathlib import Path

import duckdb

from tracewh import catalog, parquet_settings, signals
from tracewh.errors import CatalogError, Interrupted
from tracewh.home import Home
from tracewh.ingestion import generations
from tracewh.quoting import glob_escape, quote_literal
from tracewh.traces import SEQ_FILE_SHIFT

# Tens to hundreds of MB per file serve scans well (few files to open and plan, whole row groups);
# smaller files are merged, larger ones are left as they are. A file of a quarter of the target is
# large enough: a task_usage part is one such file (47-81 MB: 2-2.7 M rows in row groups of 2^20,
# tracewh.parquet_settings), and merging those would rewrite all of task_usage through DuckDB's
# COPY (13 CPU s for two parts, as much as converting them: bench/RESULTS.md, "Parquet size
# against the gzip input").
TARGET_BYTES = 128 * 2**20
SMALL_BYTES = TARGET_BYTES // 4
COMPACTED_STEM = "compacted"  # no source part is named so (2011 part-*, 2019 <table>-*, Alibaba tables)


@dataclass
class TableCompaction:
    trace: str
    table: str
    files_before: int
    files_after: int
    bytes_before: int
    bytes_after: int


def _files(gen: Path) -> list[Path]:
    return sorted(gen.rglob("*.parquet"))


def _source(paths: list[Path]) -> str:
    # hive_partitioning off: the day / cell are folder names, not columns of the files
    listed = ", ".join(quote_literal(glob_escape(p)) for p in paths)
    return f"read_parquet([{listed}], hive_partitioning = false)"


def _new_name(folder: Path, writer_id: str) -> Path:
    k = 0
    while (path := folder / f"{COMPACTED_STEM}.{writer_id}_{k}.parquet").exists():
        k += 1
    return path


def _write(con: duckdb.DuckDBPyConnection, sql: str, out: Path) -> None:
    con.execute(f"COPY ({sql} ORDER BY seq) TO {quote_literal(out)} ({_options()})")


def _options() -> str:
    """A compacted file is a raw table's file: written as the ingest writes them."""
    return parquet_settings.copy_options(parquet_settings.RAW)


def _merge(con: duckdb.DuckDBPyConnection, group: list[Path], out: Path) -> None:
    """Write the rows of ``group`` into ``out`` in seq order. Every file's rows are in seq order
    already (a part's rows in source order; a compacted file's merged so), so when no two files'
    seq ranges overlap (the usual case: one file per part) the files are read one after another
    in the order of their ranges, streamed with the insertion order kept (preserve_insertion_order,
    DuckDB's default, which the ingest's connection sets too). A sort of the whole group instead
    held every row in memory: an ingest's peak grew with the parts merged (386 MB at 500 small
    job_events parts against 200 MB at 10; bench/RESULTS.md)."""
    listed = ", ".join(quote_literal(glob_escape(p)) for p in group)
    ranges = con.execute(
        "SELECT file_name, min(TRY_CAST(stats_min_value AS BIGINT)), "
        "max(TRY_CAST(stats_max_value AS BIGINT)), "
        "bool_and(stats_min_value IS NOT NULL AND stats_max_value IS NOT NULL) "
        f"FROM parquet_metadata([{listed}]) WHERE path_in_schema = 'seq' GROUP BY file_name ORDER BY 2, 3"
    ).fetchall()
    by_name = {str(p): p for p in group}
    ordered = [by_name.get(name) for name, *_ in ranges]
    apart = (
        len(ranges) == len(group)
        and all(known for *_, known in ranges)
        and all(a[2] < b[1] for a, b in itertools.pairwise(ranges))
    )
    if not apart or None in ordered:
        _write(con, f"SELECT * FROM {_source(group)}", out)
        return
    # One thread: with two, the batches of the file read ahead wait in memory for the file before
    # (249 MB against 127 MB merging 500 small parts; the same CPU, 0.7 s against 0.6).
    row = con.execute("SELECT current_setting('threads')").fetchone()
    threads = int(row[0]) if row else 1
    con.execute("SET threads = 1")
    try:
        con.execute(
            f"COPY (SELECT * FROM {_source([p for p in ordered if p is not None])}) TO {quote_literal(out)} "
            f"({_options()})"
        )
    finally:
        con.execute(f"SET threads = {threads}")


def _cell(gen: Path, path: Path) -> str | None:
    first = path.relative_to(gen).parts[0]
    return first.removeprefix("cell=") if first.startswith("cell=") else None


def drop_parts(
    con: duckdb.DuckDBPyConnection, gen: Path, parts: dict[str | None, set[int]], writer_id: str
) -> int:
    """Remove the rows of ``parts`` (cell -> part numbers) from the compacted files of a new
    generation: each file holding some is rewritten without them under a new name (or unlinked if
    nothing is left). Returns the files changed. Part files are the ingest's business (it does not
    link the files of a part it rewrites); only compacted files hold several parts."""
    changed = 0
    for path in _files(gen):
        wanted = parts.get(_cell(gen, path))
        if not wanted or generations.output_stem(path.name) != COMPACTED_STEM:
            continue
        cond = " OR ".join(
            f"(seq >= {p * SEQ_FILE_SHIFT} AND seq < {(p + 1) * SEQ_FILE_SHIFT})" for p in sorted(wanted)
        )
        src = _source([path])
        row = con.execute(f"SELECT count(*) FILTER ({cond}), count(*) FROM {src}").fetchone()
        assert row is not None
        drop, total = row
        if not drop:
            continue
        if drop < total:
            _write(con, f"SELECT * FROM {src} WHERE NOT ({cond})", _new_name(path.parent, writer_id))
        path.unlink()  # the link in the new generation only; the live one keeps its own
        changed += 1
    return changed


def merge_small(con: duckdb.DuckDBPyConnection, gen: Path, writer_id: str) -> int:
    """Merge the small files of each leaf folder of a new generation into files of up to
    TARGET_BYTES (the input bytes, about the output's); returns the files merged away."""
    merged = 0
    for folder in sorted({p.parent for p in _files(gen)}):
        small = [p for p in sorted(folder.glob("*.parquet")) if p.stat().st_size < SMALL_BYTES]
        groups: list[list[Path]] = [[]]
        size = 0
        for p in small:
            n = p.stat().st_size
            if groups[-1] and size + n > TARGET_BYTES:
                groups.append([])
                size = 0
            groups[-1].append(p)
            size += n
        for group in groups:
            if len(group) < 2:
                continue
            _merge(con, group, _new_name(folder, writer_id))
            for p in group:
                p.unlink()
            merged += len(group)
    return merged


def compact(home: Home, trace: str | None = None, memory_limit: str | None = None) -> list[TableCompaction]:
    """Compact the live tables of a home (of ``trace``, else every trace) into new generations,
    committed at once by renaming a staged catalog. Tables with nothing to merge are left as they are."""
    if not home.catalog.exists():
        raise CatalogError(f"no catalog at {home.catalog}; nothing to compact")
    limit = catalog.pool_limit(catalog.memory_limit(memory_limit, generations.DEFAULT_MEMORY_LIMIT))
    writer_id = generations.new_writer_id()
    done: list[TableCompaction] = []
    with home.writer_lock():
        catalog.require_format(home)
        catalog.sync_links(home)
        catalog.collect_garbage(home)
        live = {k: d for k, d in catalog.live_dirs(home.catalog).items() if trace is None or k[0] == trace}
        new_gens: dict[tuple[str, str], Path] = {}
        tmp = home.tmp / writer_id
        tmp.mkdir(parents=True, exist_ok=True)
        con = duckdb.connect(config={"memory_limit": limit, "temp_directory": str(tmp)})
        catalog.no_progress_bar(con)
        try:
            with signals.interrupting(con.interrupt):
                for (t, table), data_dir in sorted(live.items()):
                    old = home.root / data_dir
                    before = _files(old)
                    gen = home.generations(t) / f"{table}.{writer_id}"
                    gen.mkdir(parents=True)
                    new_gens[(t, table)] = gen
                    generations.link_generation(old, gen, set())
                    signals.pause_point("converting")
                    if not merge_small(con, gen, writer_id):
                        shutil.rmtree(gen)
                        del new_gens[(t, table)]
                        continue
                    # the merged files' facts go with them (the next ingest counts the new files)
                    generations.prune_facts(gen)
                    after = _files(gen)
                    done.append(
                        TableCompaction(
                            t,
                            table,
                            len(before),
                            len(after),
                            sum(p.stat().st_size for p in before),
                            sum(p.stat().st_size for p in after),
                        )
                    )
            if new_gens:
                with catalog.staged(home, writer_id) as stage:
                    assert stage.con is not None
                    for c in done:
                        stage.con.execute(
                            "UPDATE meta.tables SET data_dir = $dir, files = $files, bytes = $bytes, "
                            "updated = now() WHERE trace = $t AND table_name = $n",
                            {
                                "dir": str(new_gens[(c.trace, c.table)].relative_to(home.root)),
                                "files": c.files_after,
                                "bytes": c.bytes_after,
                                "t": c.trace,
                                "n": c.table,
                            },
                        )
                    catalog.refresh(stage.con, home, {(c.trace, c.table) for c in done})
                with signals.deferred():
                    catalog.publish(home, stage)
                    catalog.sync_links(home)
        except BaseException as e:
            committed = _committed(home, new_gens)
            if not committed:
                for gen in new_gens.values():
                    shutil.rmtree(gen, ignore_errors=True)
            if isinstance(e, KeyboardInterrupt):
                raise Interrupted(
                    f"interrupted after the commit: compaction {writer_id} is complete"
                    if committed
                    else "interrupted; nothing was committed, the warehouse is as it was"
                ) from e
            raise
        finally:
            con.close()
            shutil.rmtree(tmp, ignore_errors=True)
        catalog.collect_garbage(home)
    return done


def _committed(home: Home, new_gens: dict[tuple[str, str], Path]) -> bool:
    """Did the compaction commit? The live catalog names its generations (when the catalog cannot
    be read, assume it did: keeping a generation costs disk space, deleting a live one loses data)."""
    if not new_gens:
        return False
    try:
        live = catalog.live_dirs(home.catalog)
    except (duckdb.Error, OSError, CatalogError):
        return True
    names = {str(g.relative_to(home.root)) for g in new_gens.values()}
    return bool(names & set(live.values()))
