"""The shape of the code: no import circle among tracewh's modules, and no trace fact (a trace's
name, zone, unit or special value) in the shared code outside the trace's own module and folder."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tracewh.traces import registry

REPO = Path(__file__).resolve().parent.parent
# import name -> folder (pyproject.toml maps them so)
PACKAGES = {"tracewh": REPO / "warehouse", "tracewh.cli": REPO / "cli"}


def _modules() -> dict[str, Path]:
    out = {}
    for package, root in PACKAGES.items():
        for path in root.rglob("*.py"):
            parts = [p for p in path.relative_to(root).with_suffix("").parts if p != "__init__"]
            out[".".join([package, *parts])] = path
    return out


def _imports(path: Path, known: set[str]) -> set[str]:
    """The tracewh modules ``path`` imports when it runs (at the top or inside a function): not
    those under ``if TYPE_CHECKING:``, nor names taken from the package ``tracewh`` itself
    (its version: Python has imported the package before any module of it)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {
        id(node)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and getattr(block.test, "id", None) == "TYPE_CHECKING"
        for stmt in block.body
        for node in ast.walk(stmt)
    }
    out = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("tracewh"):
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                out.add(sub if sub in known else node.module)
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("tracewh")}
    return {m for m in out if m in known and m != "tracewh"}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_no_import_circle():
    modules = _modules()
    graph = {name: _imports(path, set(modules)) - {name} for name, path in modules.items()}
    assert "tracewh.catalog" in graph["tracewh.ingestion"]  # the walk sees imports at all
    assert _cycles(graph) == []


def _layer(module: str) -> str:
    """The layer a module belongs to: its subpackage (tracewh.catalog, tracewh.cli...), or itself
    for a module at the top of the package."""
    parts = module.split(".")
    if (len(parts) > 1 and (PACKAGES["tracewh"] / parts[1]).is_dir()) or parts[:2] == ["tracewh", "cli"]:
        return ".".join(parts[:2])
    return module


def _layers(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for name, imported in graph.items():
        out.setdefault(_layer(name), set()).update(_layer(m) for m in imported)
    return {name: imported - {name} for name, imported in out.items()}


def test_no_import_circle_between_subpackages():
    # The folders are the architecture: a subpackage never imports one that imports it back.
    modules = _modules()
    layers = _layers({name: _imports(path, set(modules)) - {name} for name, path in modules.items()})
    assert {"tracewh.catalog", "tracewh.engines", "tracewh.ingestion", "tracewh.reports"} <= set(layers)
    assert "tracewh.catalog" in layers["tracewh.ingestion"]  # the walk sees imports between them
    assert _cycles(layers) == []


def test_the_cycle_finder_finds_a_circle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_a_circle_between_subpackages_is_found():
    # no circle among the modules, one between their folders (and none through the top's modules)
    graph = {
        "tracewh.catalog.query": {"tracewh.reports.display"},
        "tracewh.reports.display": set(),
        "tracewh.reports": {"tracewh.catalog", "tracewh.errors"},
        "tracewh.catalog": {"tracewh.errors"},
        "tracewh.errors": set(),
    }
    assert _cycles(graph) == []
    assert _cycles(_layers(graph)) == [["tracewh.catalog", "tracewh.reports"]]


# What identifies a trace in text: its name, its zones, its time offset and unit, its after-window
# value (as written in Python, in SQL and in prose); the largest BIGINT is also the type's bound,
# so that value counts only where a trace's spec gives it as its after-window value.
def _facts() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for spec in registry().values():
        facts = {spec.name, *spec.cell_zones.values()}
        facts |= {spec.time_zone} if spec.time_zone else set()
        for value in (spec.start_offset, spec.units_per_day):
            if value > 86_400:  # small numbers (seconds in a day) are everyone's
                facts |= {str(value), f"{value:_}"}
        if spec.after_window is not None:
            facts |= {str(spec.after_window)}
            # as the trace's documents write it in prose: 2^63-1
            k = (spec.after_window + 1).bit_length() - 1
            if spec.after_window == 2**k - 1:
                facts |= {f"2^{k}-1", f"2^{k} - 1"}
        out[spec.name] = facts
    return out


def _own(path: Path, trace: str) -> bool:
    """The trace's own places: its module, its synth module, its SQL folder."""
    rel = path.relative_to(REPO).as_posix()
    return rel in (f"warehouse/traces/{trace}.py", f"warehouse/synth/{trace}.py") or rel.startswith(
        f"sql/{trace}/"
    )


def _trace_facts_outside_their_places() -> dict[str, list[str]]:
    holders: dict[str, set[str]] = {}  # a fact -> the traces that have it (zones are shared)
    for trace, words in _facts().items():
        for w in words:
            holders.setdefault(w, set()).add(trace)
    found: dict[str, list[str]] = {}
    for top in ("warehouse", "cli", "sql"):
        for path in sorted((REPO / top).rglob("*")):
            if path.suffix not in (".py", ".sql") or "__pycache__" in path.parts:
                continue
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                for word, traces in holders.items():
                    if any(_own(path, t) for t in traces):
                        continue
                    if re.search(rf"(?<![\w/]){re.escape(word)}(?!\w)", line):
                        found.setdefault(path.relative_to(REPO).as_posix(), []).append(f"{n}: {word}")
    return found


def test_no_trace_fact_outside_the_traces_own_places():
    # A report or check of one trace's views lives in its folder (sql/<trace>/reports/, checks/);
    # help texts take their example traces from the registry; published figures are the spec's.
    found = _trace_facts_outside_their_places()
    # each place named "file:line: fact", to be moved into the trace's spec or folder
    assert found == {}, [f"{f}:{at}" for f in sorted(found) for at in found[f]]


def test_the_fact_scan_sees_a_fact():
    # the scan's own view of the registry: a trace's name, zone, offset and after-window value
    facts = _facts()
    assert {"google2011", "America/New_York", "600000000", "600_000_000", "2^63-1"} <= facts["google2011"]
    assert "Europe/Helsinki" in facts["google2019"] and "alibaba2018" in facts["alibaba2018"]


def _python_in_strings(path: Path) -> list[int]:
    """The lines of string literals in ``path`` that hold a Python program (an import statement
    on a line of its own, in a text of several lines): code no linter reads."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and node.value.count("\n") > 2
            and re.search(r"^\s*(import \w|from \w[\w.]* import )", node.value, re.M)
        ):
            out.append(node.lineno)
    return out


def test_bench_is_modules_not_code_in_strings():
    # The benchmarks are a package whose measured programs are modules of bench/probes/ (run with
    # `python -m`), so ruff reads all of their code.
    bench = REPO / "bench"
    assert (bench / "__init__.py").is_file() and (bench / "probes" / "__init__.py").is_file()
    found = {
        p.relative_to(REPO).as_posix(): lines for p in bench.rglob("*.py") if (lines := _python_in_strings(p))
    }
    assert found == {}


def test_the_string_scan_sees_a_program(tmp_path):
    path = tmp_path / "x.py"
    path.write_text(
        'CODE = """\nimport json, sys\nprint(json.dumps(sys.argv))\n"""\nDOC = """a\nb\nc\nd"""\n'
    )
    assert _python_in_strings(path) == [1]
