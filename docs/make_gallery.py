"""Render the report gallery (docs/gallery/*.png and docs/gallery.md) from a home.

    .venv/bin/python docs/make_gallery.py HOME

Every report with a chart, once per trace it covers that HOME holds, at the paper's double-column
size (7 in) and 100 dpi, so each image stays a few tens of KB. The committed gallery was drawn from
a small synthetic home (`tracewh synth`, see docs/gallery.md), not from the real traces.
"""

from __future__ import annotations

import sys
from pathlib import Path

import tracewh
from tracewh import reports
from tracewh.errors import TracewhError
from tracewh.reports import plots

OUT = Path(__file__).resolve().parent / "gallery"


def _shrink(path: Path) -> None:
    """A 64-colour palette keeps a chart a few tens of KB; its text chunks (the provenance) stay."""
    from PIL import Image
    from PIL.PngImagePlugin import PngInfo

    with Image.open(path) as img:
        info = PngInfo()
        for key, value in img.text.items():
            info.add_text(key, value)
        small = img.convert("RGB").quantize(colors=64)
    small.save(path, optimize=True, pnginfo=info)


def main(home: str) -> None:
    OUT.mkdir(exist_ok=True)
    style = plots.Style.parse("double", dpi=100)
    held = set(tracewh.info(home=home)["trace"].to_list())
    lines = []
    for name, report in reports.all_reports().items():
        if not report.plot:
            continue
        traces = [t for t in report.traces if t in held] if report.needs_trace else [None]
        for trace in traces:
            try:
                result = tracewh.report(name, trace=trace, home=home, **report.example_options)
                target = OUT / f"{name}{'.' + trace if trace else ''}.png"
                plots.write(name, result.rows, target, dict(result.provenance), style)
                _shrink(target)
            except TracewhError as e:
                print(f"skipped {name} {trace or ''}: {e}", file=sys.stderr)
                continue
            lines.append(
                f"### {name}{f' ({trace})' if trace else ''}\n\n{report.description}. "
                f"Reproduces: {report.reproduces}\n\n![{name}](gallery/{target.name})\n"
            )
            print(f"wrote {target}", file=sys.stderr)
    head = (
        "# Report gallery\n\nEvery chart tracewh draws, one per report and trace, regenerated with "
        "`.venv/bin/python docs/make_gallery.py HOME`. These were drawn from a small synthetic home "
        "(`tracewh synth google2011 DIR --scale 0.004 --parts 2`, `google2019 --scale 0.0005 --cells a`, "
        "`alibaba2018 --scale 0.002 --form csv`, each ingested): the shapes are the generator's, not the "
        "traces'. Each PNG carries its provenance (`tracewh.reports.provenance.read(path)`).\n"
    )
    (OUT.parent / "gallery.md").write_text(head + "\n" + "\n".join(lines), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1])
