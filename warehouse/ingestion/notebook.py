"""How results show themselves in a notebook or a REPL: short text and HTML summaries instead of
the dataclass dumps (an ingest of 500 parts would print every file and reject). The objects'
``__repr__`` / ``_repr_html_`` call these; figures show themselves (tracewh.reports.plots)."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tracewh.ingestion import IngestResult

# Tables listed by name in a summary; more are counted.
SHOWN_TABLES = 12


def ingest_rows(result: IngestResult) -> list[tuple[str, int, int, int, int]]:
    """(table, files, rows written, rows rejected, rows in the live table) per table."""
    return [
        (
            t.table,
            len(t.files),
            sum(f.rows_written for f in t.files),
            sum(f.rows_rejected for f in t.files),
            t.rows_total,
        )
        for t in result.tables
    ]


def ingest_text(result: IngestResult) -> str:
    rows = ingest_rows(result)
    head = (
        f"IngestResult({result.trace}, {result.mode}, {len(result.files):,} files, "
        f"{sum(r[2] for r in rows):,} rows written, {sum(r[3] for r in rows):,} rejected, "
        f"{result.seconds:.1f} s, ingest {result.ingest_id})"
    )
    lines = [
        f"  {table}: {files:,} files, {written:,} written, {rejected:,} rejected, {total:,} in the table"
        for table, files, written, rejected, total in rows[:SHOWN_TABLES]
    ]
    if len(rows) > SHOWN_TABLES:
        lines.append(f"  ... {len(rows) - SHOWN_TABLES} more tables")
    return "\n".join([head, *lines])


def ingest_html(result: IngestResult) -> str:
    cells = "".join(
        f"<tr><td>{escape(table)}</td><td>{files:,}</td><td>{written:,}</td><td>{rejected:,}</td><td>{total:,}</td></tr>"
        for table, files, written, rejected, total in ingest_rows(result)
    )
    return (
        f"<p><b>ingest {escape(result.trace)}</b> ({escape(result.mode)}, {result.seconds:.1f} s, "
        f"id {escape(result.ingest_id)})</p><table><thead><tr><th>table</th><th>files</th>"
        f"<th>rows written</th><th>rejected</th><th>rows in the table</th></tr></thead>"
        f"<tbody>{cells}</tbody></table>"
    )
