"""`tracewh summary --html FILE`: one self-contained page with every report that applies.

Which reports appear is discovered, never listed: every report of sql/reports/ whose traces
include an ingested one, once per ingested trace it covers. Each section holds the report's
description, the published figure it reproduces beside tracewh's table (``published_*``
columns marked), its chart embedded as a PNG data URI, its caveats (the report footer of
tracewh.reports: the header's caveat and what applies to this data) and its method (note).
The page needs no network: styles inline, images inline, no scripts.
"""

from __future__ import annotations

import base64
import datetime as dt
import html
import io
from collections.abc import Callable
from dataclasses import dataclass, field

from tracewh import __version__, reports, results
from tracewh.catalog import query
from tracewh.errors import TracewhError
from tracewh.home import Home
from tracewh.reports import display, provenance
from tracewh.traces import listing_key

# Rows shown per report table; the rest is counted under it.
TABLE_ROWS = 40

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d2330;
background:#f6f7f9}
header{background:#1d2330;color:#fff;padding:18px 32px}header h1{margin:0 0 4px;font-size:22px}
header p{margin:0;color:#c7cbd4;font-size:13px}main{padding:16px 32px;max-width:1400px}
nav{columns:3;font-size:13px;margin:8px 0 20px}nav a{color:#2456a6;text-decoration:none}
section{background:#fff;border:1px solid #dde1e7;border-radius:6px;margin:0 0 22px;padding:14px 20px}
h2{font-size:18px;margin:0 0 2px}h2 small{color:#6b7280;font-weight:normal;font-size:13px}
.desc{color:#374151;font-size:14px;margin:4px 0 10px}
.cmp{display:grid;grid-template-columns:minmax(220px,1fr) 3fr;gap:16px}
.pub{background:#fff8e6;border-left:4px solid #e0a800;padding:8px 12px;font-size:13px}
.pub h3,.ours h3{font-size:12px;text-transform:uppercase;letter-spacing:.05em;margin:0 0 6px;color:#6b7280}
.ours{overflow-x:auto}table{border-collapse:collapse;font-size:12px;font-variant-numeric:tabular-nums}
th,td{border-bottom:1px solid #e5e7eb;padding:3px 8px;white-space:nowrap}
th{background:#f3f4f6;text-align:left}
td.n{text-align:right}th.p,td.p{background:#fff8e6}.more{color:#6b7280;font-size:12px}
img{max-width:min(100%,900px);margin-top:10px;border:1px solid #eee}
.wide{overflow-x:auto}
.cav{font-size:13px;color:#4b5563;border-top:1px dashed #d1d5db;margin-top:10px;padding-top:6px}
.skip{font-size:13px;color:#6b7280}
"""


@dataclass
class Section:
    report: str
    trace: str | None
    html: str
    has_plot: bool


@dataclass
class Page:
    html: str
    sections: list[Section] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)


def applicable(home: Home) -> list[tuple[reports.Report, str | None]]:
    """(report, trace) pairs for what is ingested: a trace-taking report once per trace it
    covers that is ingested; a report over several traces at once (overview, compare) once."""
    with query.read_only(home) as con:
        ingested = {t for (t,) in con.execute("SELECT DISTINCT trace FROM meta.tables").fetchall()}
    out: list[tuple[reports.Report, str | None]] = []
    for report in reports.all_reports().values():
        covered = [t for t in report.traces if t in ingested]
        if not covered:
            continue
        if report.needs_trace:
            out.extend((report, t) for t in covered)
        else:
            out.append((report, None))
    return out


def html_page(home: Home, tz: str | None = None, progress: Callable[[str], None] | None = None) -> Page:
    """Run every applicable report (read-only) and build the page."""
    with query.snapshot(home):  # one state of the warehouse on the whole page
        return _html_page(home, tz, progress)


def _html_page(home: Home, tz: str | None, progress: Callable[[str], None] | None) -> Page:
    from tracewh.catalog import holdings

    page = Page(html="")
    for report, trace in applicable(home):
        label = report.name + (f" --trace {trace}" if trace else "")
        if progress:
            progress(label)
        try:
            rows = reports.run(home, report.name, trace=trace, tz=tz)
        except TracewhError as e:
            page.skipped.append((label, str(e)))
            continue
        caveats = results.caveats(report.name, reports.footer(home, report.name, trace=trace))
        page.sections.append(_section(report, trace, rows, caveats))
    held = holdings.tables(home, tz=tz)
    with query.read_only(home) as con:
        made_up = reports.synthetic(con)
    generated = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    traces = sorted({str(r[0]) for r in held.rows}, key=listing_key)  # the registry's order
    nav = "".join(
        f'<a href="#{_anchor(s.report, s.trace)}">{_e(s.report)}'
        + (f" ({_e(s.trace)})" if s.trace else "")
        + "</a><br>"
        for s in page.sections
    )
    skipped = "".join(f"<li>{_e(name)}: {_e(reason)}</li>" for name, reason in page.skipped)
    body = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>tracewh summary: {_e(', '.join(traces))}</title><style>{_CSS}</style></head><body>",
        f"<header><h1>tracewh summary</h1><p>{_e(', '.join(traces))} &middot; home {_e(str(home.root))}"
        f" &middot; generated {generated} by tracewh {__version__} &middot; "
        f"{len(page.sections)} reports</p></header><main>",
        "".join(f'<p class="synthetic"><b>{_e(line)}</b></p>' for line in made_up.values()),
        '<section id="ingested"><h2>What is ingested</h2><div class="wide">',
        _table(held.columns, held.types, held.rows, set()),
        "</div></section>",
        f"<nav>{nav}</nav>",
        *(s.html for s in page.sections),
        (f'<section><h2>Not shown</h2><ul class="skip">{skipped}</ul></section>' if skipped else ""),
        _footer(provenance.collect(home)),
        "</main></body></html>",
    ]
    page.html = "\n".join(body)
    return page


def _section(report: reports.Report, trace: str | None, rows: query.Rows, caveats: list[str]) -> Section:
    published = {i for i, c in enumerate(rows.columns) if c.startswith("published")}
    chart = _chart(report, rows)
    pub = (
        f'<div class="pub"><h3>Published</h3>{_e(report.reproduces)}</div>'
        if report.reproduces
        else '<div class="pub"><h3>Published</h3>no published figure</div>'
    )
    has_times = any(t.upper().startswith("TIMESTAMP") for t in rows.types)
    zone = f" &middot; times in {_e(str(rows.context.get('zone', 'UTC')))}" if has_times else ""
    parts = [
        f'<section id="{_anchor(report.name, trace)}" data-report="{_e(report.name)}"'
        + (f' data-trace="{_e(trace)}"' if trace else "")
        + ">",
        f"<h2>{_e(report.name)} <small>{_e(trace or ', '.join(report.traces))}{zone}</small></h2>",
        f'<p class="desc">{_e(report.description)}</p>',
        f'<div class="cmp">{pub}<div class="ours"><h3>tracewh</h3>',
        _table(rows.columns, rows.types, rows.rows, published),
        "</div></div>",
        chart,
        "".join(f'<p class="cav"><b>Caveat.</b> {_e(line)}</p>' for line in caveats),
        _parameters(rows.context.get("params")),
        f'<p class="cav"><b>Method.</b> {_e(report.note)}</p>' if report.note else "",
        "</section>",
    ]
    return Section(report.name, trace, "\n".join(parts), bool(chart))


def _table(columns: list[str], types: list[str], rows: list[tuple], marked: set[int]) -> str:
    head = "".join(f"<th{' class=p' if i in marked else ''}>{_e(c)}</th>" for i, c in enumerate(columns))
    body = []
    for row in rows[:TABLE_ROWS]:
        cells = []
        for i, (v, c, t) in enumerate(zip(row, columns, types, strict=True)):
            cls = " ".join(k for k, on in (("n", display.is_numeric(t)), ("p", i in marked)) if on)
            cells.append(
                f"<td{f' class={chr(34)}{cls}{chr(34)}' if cls else ''}>{_e(display.human(v, c, t))}</td>"
            )
        body.append("<tr>" + "".join(cells) + "</tr>")
    more = (
        f'<p class="more">{len(rows) - TABLE_ROWS} more rows (tracewh report ... --output FILE for all)</p>'
        if len(rows) > TABLE_ROWS
        else ""
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>{more}"


def _chart(report: reports.Report, rows: query.Rows) -> str:
    """The report's chart as an <img> with a PNG data URI; '' when it has none or no rows to draw."""
    if not report.plot:
        return ""
    from tracewh.reports import plots

    try:
        fig = plots.figure(report.name, rows)
    except TracewhError:
        return ""
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return f'<img alt="{_e(report.name)} chart" src="data:image/png;base64,{data}">'


def _parameters(params: object) -> str:
    if not isinstance(params, dict) or not params:
        return ""
    text = ", ".join(f"{k}={v}" for k, v in params.items())
    return f'<p class="cav"><b>Parameters.</b> {_e(text)}</p>'


def _footer(record: dict) -> str:
    """Where the page's numbers come from (tracewh.reports.provenance): shown, and as JSON a tool reads
    back (a hidden <pre>, so the page still has no script)."""
    generations = "".join(
        f"<li>{_e(table)}: {_e(str(v['generation']))}</li>" for table, v in record["catalog"].items()
    )
    sources = "".join(
        f"<li><code>{_e(f['sha256'] or 'no digest')}</code> {_e(name)}</li>"
        for f in record["sources"]
        for name in ["/".join((f["trace"], f["table"], f["file"]))]
    )
    return (
        '<footer class="cav" id="provenance"><h2>Provenance</h2>'
        f"<p>tracewh {_e(record['tracewh_version'])} &middot; created {_e(record['created'])} &middot; "
        f"sha256 over the {len(record['sources'])} source files: "
        f"<code>{_e(record['sources_sha256'])}</code></p>"
        f"<details><summary>catalog generations</summary><ul>{generations}</ul></details>"
        f"<details><summary>source files (sha256)</summary><ul>{sources}</ul></details>"
        f'<pre hidden id="tracewh-provenance">{_e(provenance.dumps(record))}</pre></footer>'
    )


def _anchor(name: str, trace: str | None) -> str:
    return f"r-{name}" + (f"-{trace}" if trace else "")


def _e(text: str) -> str:
    return html.escape(text, quote=True)
