"""The result types the CLI and the API show: light (no duckdb import), so cli/ types them."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Rows:
    """A result set: column names and types, and the rows (a list, or a stream of batches)."""

    columns: list[str]
    types: list[str]
    rows: list[tuple]
    # What produced them, for a caller that shows it (a report's trace, cell, zone, parameters).
    context: dict[str, object] = field(default_factory=dict)
