"""The options of an operation as one typed value: built once by its caller (the command line, the
Python API, a session) and passed down whole to the library that runs it (tracewh.session,
tracewh.ingestion), never spread into keywords again.

An options value is checked when it is made: a contradiction or a malformed value is an
OptionError (tracewh.errors) at once, before any file is read, whichever interface made it; the
error names the options as the Python API does, and the command line words it with its flags.
The defaults are the dataclass fields' and nowhere else: the API's keywords take theirs from a
default value (``IngestOptions()``) and pass them on with ``from_keywords``.
Light on imports: the CLI builds these values before anything heavy is loaded.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, TypeVar

from tracewh.errors import OptionError

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

# A range wider than this is a typo, not a selection (no trace has this many parts or shards).
MAX_RANGE = 10_000_000
T = TypeVar("T", bound="DataclassInstance")


def parse_ranges(text: str, name: str) -> list[tuple[int, int]]:
    """``0-99,120`` as inclusive ranges of numbers (part numbers, shards); an OptionError names
    the option ``name`` (``parts``, ``shards``)."""
    out = []
    for item in text.split(","):
        item = item.strip()
        shown = _literal(item)
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", item)
        if not m:
            raise OptionError(f"{{}}: {shown} is not a number or a range like 0-99,120", (name, text))
        lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
        if hi < lo:
            raise OptionError(f"{{}}: the range {shown} runs backwards", (name, text))
        if hi - lo > MAX_RANGE:
            raise OptionError(f"{{}}: the range {shown} is too large", (name, text))
        out.append((lo, hi))
    return out


def _literal(text: str) -> str:
    """``text`` quoted, for a message template (its braces doubled)."""
    return repr(text).replace("{", "{{").replace("}", "}}")


@dataclass(frozen=True)
class ReportOptions:
    """How to run one report: its trace and cell (None: the report's own choice), the zone times
    print in (None: the trace's), and its parameters (name -> value; text from the command line,
    Python values from the API, converted by the report's typed header)."""

    trace: str | None = None
    cell: str | None = None
    tz: str | None = None
    params: Mapping[str, object] = field(default_factory=dict)

    def texts(self) -> dict[str, str]:
        """The parameters as the text the report's header types and checks."""
        return {k: str(v) for k, v in self.params.items()}


@dataclass(frozen=True)
class IngestOptions:
    """What to ingest and how: ``tables`` only these tables; ``table_for_file`` the table of
    single files; ``cell`` the cell of a flat folder of shards; ``replace`` / ``append`` the mode
    (default: the parts given are written, every other part is kept; ``replace``: the tables become
    exactly the parts given; ``append``: a part ingested with other content is refused);
    ``parts`` a part range (``0-99,250``); ``allow_empty`` accept a file with no rows; ``verify``
    checksums; ``workers`` conversion threads (None: the cores); ``compact`` merge small files.
    Checked when made (OptionError)."""

    tables: list[str] | None = None
    table_for_file: str | None = None
    cell: str | None = None
    replace: bool = False
    append: bool = False
    parts: str | None = None
    allow_empty: bool = False
    verify: bool = True
    workers: int | None = None
    compact: bool = True

    def __post_init__(self) -> None:
        if self.replace and self.append:
            raise OptionError(
                "{} and {} contradict each other; choose one", ("replace", True), ("append", True)
            )
        if self.parts is not None:
            parse_ranges(self.parts, "parts")
        if self.workers is not None and self.workers < 1:
            raise OptionError("{}: at least one worker is needed", ("workers", self.workers))

    @property
    def mode(self) -> str:
        """``replace``, ``append`` or ``parts`` (the default: the parts given, the others kept)."""
        return "replace" if self.replace else "append" if self.append else "parts"

    def part_numbers(self) -> set[int] | None:
        """The part numbers ``parts`` selects (None: every part)."""
        if self.parts is None:
            return None
        return {n for lo, hi in parse_ranges(self.parts, "parts") for n in range(lo, hi + 1)}


def from_keywords(cls: type[T], given: Mapping[str, object], **renamed: str) -> T:
    """An options value from the keywords of a function that takes them one by one (its
    ``locals()``): each field from the keyword of its name, or of the name ``renamed`` gives it
    (``table_for_file="table"``)."""
    return cls(**{f.name: given[renamed.get(f.name, f.name)] for f in fields(cls)})
