"""Where an exported result came from, in a form that travels with the file.

One record (a plain dict, JSON-ready) per export: the tracewh version, the catalog's live
generation of every table read, the sha256 of every source file behind them (from
``meta.ingests``) with one digest over them all, and for a report its name, parameters,
what it reproduces and its caveats (for ``tracewh sql``: the query). Each format carries it
where its readers look for metadata (``attach`` / ``read`` / the ``*_metadata`` helpers):
- csv, json, jsonl, markdown, a table: a sidecar ``<file>.provenance.json`` (a comment line
  inside a csv breaks csv readers);
- Parquet: the file's key-value metadata, key ``tracewh.provenance``;
- PNG: the text chunk ``tracewh.provenance``; PDF: the document info's ``Subject``; SVG: its
  ``Description`` (each format's own field for free text);
- the HTML summary: its footer (tracewh.reports.summary).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from pathlib import Path
from typing import Any

from tracewh import __version__
from tracewh.catalog import query
from tracewh.home import Home

KEY = "tracewh.provenance"
SIDECAR_SUFFIX = ".provenance.json"

_SOURCES_SQL = """
SELECT trace, table_name, cell, file, size_bytes, sha256, sha256_verified
FROM meta.ingests WHERE is_current {where}
ORDER BY trace, table_name, cell NULLS FIRST, file
"""
_TABLES_SQL = (
    "SELECT trace, table_name, data_dir, updated FROM meta.tables {where} ORDER BY trace, table_name"
)


def collect(
    home: Home,
    traces: list[str] | None = None,
    *,
    report: str | None = None,
    params: dict[str, object] | None = None,
    reproduces: str = "",
    caveats: list[str] | None = None,
    sql: str | None = None,
) -> dict[str, Any]:
    """The provenance of a result over ``traces`` (None: every ingested trace)."""
    only = "list_contains($traces, trace)"
    args = {} if traces is None else {"traces": traces}
    with query.read_only(home) as con:
        tables = query.fact(con, _TABLES_SQL.format(where=f"WHERE {only}" if args else ""), args)
        sources = query.fact(con, _SOURCES_SQL.format(where=f"AND {only}" if args else ""), args)
    files = [
        {
            "trace": t,
            "table": n,
            **({"cell": c} if c else {}),
            "file": f,
            "size_bytes": size,
            "sha256": digest,
            "sha256_verified": verified,
        }
        for t, n, c, f, size, digest, verified in sources
    ]
    record: dict[str, Any] = {
        "tracewh_version": __version__,
        "created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "home": str(home.root),
        "catalog": {
            f"{t}.{n}": {"generation": d, "updated": u.isoformat() if u else None} for t, n, d, u in tables
        },
        "sources_sha256": sources_digest(files),
        "sources": files,
    }
    if report is not None:
        record.update(
            report=report, params=_plain(params or {}), reproduces=reproduces, caveats=caveats or []
        )
    if sql is not None:
        record["sql"] = sql
    return record


def sources_digest(files: list[dict[str, Any]]) -> str:
    """One sha256 over the sources' digests (``<sha256>  <trace>/<table>/<file>`` lines in order):
    two exports with the same value were computed from the same bytes."""
    lines = "".join(f"{f['sha256'] or '-'}  {f['trace']}/{f['table']}/{f['file']}\n" for f in files)
    return hashlib.sha256(lines.encode()).hexdigest()


def _plain(params: dict[str, object]) -> dict[str, object]:
    return {
        k: v if isinstance(v, int | float | str | bool) or v is None else str(v) for k, v in params.items()
    }


def dumps(record: dict[str, Any]) -> str:
    """ASCII JSON: PNG text chunks and PDF strings hold it unchanged."""
    return json.dumps(record, ensure_ascii=True, sort_keys=False, default=str)


def sidecar(path: Path) -> Path:
    return Path(f"{path}{SIDECAR_SUFFIX}")


def parquet_metadata(record: dict[str, Any]) -> dict[bytes, bytes]:
    return {KEY.encode(): dumps(record).encode()}


def figure_metadata(record: dict[str, Any], suffix: str) -> dict[str, str]:
    """matplotlib's ``savefig(metadata=...)`` for the figure's format (each has its own keys)."""
    text = dumps(record)
    creator = f"tracewh {record['tracewh_version']}"
    title = str(record.get("report") or "tracewh")
    fmt = suffix.lower().lstrip(".")
    if fmt == "png":
        return {"Software": creator, "Title": title, KEY: text}
    if fmt == "pdf":
        return {"Creator": creator, "Title": title, "Subject": text}
    if fmt == "svg":
        return {"Creator": creator, "Title": title, "Description": text}
    return {}  # formats without a metadata field (eps, jpg): the caller writes a sidecar


def read(path: Path) -> dict[str, Any]:
    """The provenance stored with an export (its sidecar, or the Parquet/PNG metadata)."""
    path = Path(path)
    side = sidecar(path)
    if side.exists():
        return json.loads(side.read_text(encoding="utf-8"))
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        import pyarrow.parquet as pq

        meta = pq.read_metadata(path).metadata or {}
        return json.loads(meta[KEY.encode()])
    if suffix == ".png":
        from PIL import Image

        with Image.open(path) as img:
            return json.loads(img.info[KEY])
    raise KeyError(f"{path}: no provenance found")
