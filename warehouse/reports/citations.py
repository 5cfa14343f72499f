"""What to cite (`tracewh cite`, `tracewh.cite()`): the traces' own documents and the papers a report
reproduces, as BibTeX. The entries live in the trace specs (``TraceSpec.papers``); a report names
the ones it reproduces in its header (``cites:``)."""

from __future__ import annotations

from tracewh import reports
from tracewh.errors import UsageError
from tracewh.traces import Paper, papers, registry


def for_target(target: str | None = None) -> list[tuple[str, Paper]]:
    """(why, paper) pairs: for every trace (None), one trace, or one report (its traces' own
    papers, then the papers it reproduces)."""
    specs = registry()
    if target is None or target in specs:
        names = list(specs) if target is None else [target]
        return [
            (f"{t}: cite when using the trace", p)
            for t in names
            for p in specs[t].papers
            if p.cite_with_trace
        ]
    known = reports.all_reports()
    if target not in known:
        raise UsageError(
            f"no trace or report named {target!r} (traces: {', '.join(specs)}; `tracewh report list`)"
        )
    report = known[target]
    out = [
        (f"{t}: cite when using the trace", p)
        for t in report.traces
        if t in specs
        for p in specs[t].papers
        if p.cite_with_trace
    ]
    everything = papers()
    for key in report.cites:
        if key not in everything:
            raise UsageError(f"report {target} cites {key!r}, which no trace spec defines")
        out.append((f"report {target} reproduces it", everything[key][1]))
    return out


def bibtex(target: str | None = None) -> str:
    """The BibTeX of ``for_target``, each entry after ``%`` comments (BibTeX ignores them) saying
    why and where the entry comes from."""
    return (
        "\n\n".join(f"% {why}\n% source: {paper.source}\n{paper.bibtex}" for why, paper in for_target(target))
        + "\n"
    )
