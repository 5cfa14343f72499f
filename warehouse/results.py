"""The result types the CLI and the API show: light (no duckdb or polars import until a
DataFrame is asked for), so cli/ types them and the session returns them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl


@dataclass
class Rows:
    """A result set: column names and types, and the rows (a list, or a stream of batches)."""

    columns: list[str]
    types: list[str]
    rows: list[tuple]
    # What produced them, for a caller that shows it (a report's trace, cell, zone, parameters).
    context: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class ReportResult:
    """A report's rows and what they mean. ``df`` is the polars DataFrame; attribute access
    falls through to it (``r.filter(...)``, ``r.shape``), and notebooks show the table with
    the published figure and the caveats under it."""

    name: str
    description: str
    reproduces: str
    # The report's footer: what it reproduces, its caveat, and what applies to this data
    # (the bundled sample, the observed window, missing parts); one line each.
    footer: tuple[str, ...]
    method: str
    trace: str | None
    cell: str | None
    zone: str
    params: Mapping[str, object]
    rows: Rows = field(repr=False)
    # Where the numbers come from (tracewh.reports.provenance.collect): version, catalog generations,
    # source digests, parameters, caveats; exports and figures carry it.
    provenance: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @property
    def caveats(self) -> list[str]:
        """The footer without its 'reproduces' line: what to keep in mind reading these numbers."""
        return caveats(self.name, self.footer)

    @property
    def df(self) -> pl.DataFrame:
        return to_polars(self.rows)

    @property
    def metadata(self) -> dict[str, object]:
        return {
            "report": self.name,
            "description": self.description,
            "reproduces": self.reproduces,
            "caveats": self.caveats,
            "method": self.method,
            "trace": self.trace,
            "cell": self.cell,
            "zone": self.zone,
            "params": dict(self.params),
        }

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.df, name)

    def __len__(self) -> int:
        return len(self.rows.rows)

    def __getitem__(self, key: Any) -> Any:
        return self.df[key]

    @property
    def heading(self) -> str:
        """'report queue (<trace> cell a; bucket_s=600): 697 rows'"""
        where = "; ".join(
            p
            for p in (
                (self.trace or "") + (f" cell {self.cell}" if self.cell else ""),
                ", ".join(f"{k}={v}" for k, v in self.params.items()),
            )
            if p
        )
        return f"report {self.name}" + (f" ({where})" if where else "") + f": {len(self):,} rows"

    def __repr__(self) -> str:
        notes = [self.heading]
        if self.reproduces:
            notes.append(f"reproduces: {self.reproduces}")
        notes += self.caveats
        return notes[0] + "\n" + repr(self.df) + "\n" + "\n".join(notes[1:])

    def _repr_html_(self) -> str:
        from html import escape

        lines = ([f"reproduces: {self.reproduces}"] if self.reproduces else []) + self.caveats
        notes = "".join(f"<p>{escape(text)}</p>" for text in lines)
        return f"<p><b>{escape(self.heading)}</b></p>" + self.df._repr_html_() + notes


def to_polars(rows: Rows) -> pl.DataFrame:
    """Rows as a polars DataFrame (every row read for the types, so a late NULL never breaks it)."""
    import polars as pl

    if not rows.rows:
        return pl.DataFrame(schema=rows.columns)
    return pl.DataFrame(rows.rows, schema=rows.columns, orient="row", infer_schema_length=None)


def caveats(name: str, footer_lines: list[str] | tuple[str, ...]) -> list[str]:
    """The footer without its 'reproduces' line: what to keep in mind reading the numbers."""
    return [line for line in footer_lines if not line.startswith(f"{name} reproduces:")]
