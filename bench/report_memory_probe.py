"""What holds a report's memory: DuckDB's buffer pool, Arrow, and the rest, at the peak of the RSS.

DuckDB's ``memory_limit`` covers its buffer manager only (https://duckdb.org/docs/2.0/operations_manual/limits.html);
a report's process also holds the interpreter and libraries, DuckDB's allocations outside the
pool, memory DuckDB has freed that the allocator keeps, and any Arrow data in Python. This runs
one report in-process (``tracewh.reports.run``) and every 0.1 s samples the RSS
(/proc/self/statm), ``duckdb_memory()`` of the report's database (the pool, by tag, and what it
spilled) and ``pyarrow.total_allocated_bytes()`` (pyarrow's own pool: Arrow batches DuckDB
exports count as "outside both"); it prints the sample with the largest RSS and a timeline. The
peak RSS between samples is /usr/bin/time's, so run it under that:

    /usr/bin/time -f '%M KiB' .venv/bin/python -m bench.report_memory_probe HOME REPORT TRACE [LIMIT]
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import duckdb
import pyarrow as pa

MIB = 2**20
_real_connect = duckdb.connect
_databases: list[duckdb.DuckDBPyConnection] = []
_lock = threading.Lock()  # the poller never queries a connection while the report closes it


class _Watched:
    """The report's connection, seen by the poller until the report closes it."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self._con = con
        self._cursor = con.cursor()
        with _lock:
            _databases.append(self)

    def pool(self) -> dict[str, int]:
        out: dict[str, int] = {}
        rows = self._cursor.execute(
            "SELECT tag, memory_usage_bytes, temporary_storage_bytes FROM duckdb_memory()"
        ).fetchall()
        for tag, used, spilled in rows:
            if used:
                out[tag] = used
            if spilled:
                out["spilled " + tag] = spilled
        return out

    def close(self) -> None:
        with _lock:
            _databases.remove(self)
            self._cursor.close()
        self._con.close()

    def __getattr__(self, name: str):
        return getattr(self._con, name)


def _connect(*args, **kwargs):
    return _Watched(_real_connect(*args, **kwargs))


duckdb.connect = _connect  # before tracewh is imported: its modules call duckdb.connect


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def main() -> int:
    from tracewh import reports
    from tracewh.home import Home

    home, name, trace = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    limit = sys.argv[4] if len(sys.argv) > 4 else None
    samples: list[tuple[float, int, int, int, dict[str, int]]] = []
    done = threading.Event()

    def poll() -> None:
        while not done.is_set():
            pool: dict[str, int] = {}
            with _lock:
                for w in _databases:
                    for tag, b in w.pool().items():
                        pool[tag] = pool.get(tag, 0) + b
            in_pool = sum(b for tag, b in pool.items() if not tag.startswith("spilled "))
            samples.append((time.time(), _rss(), in_pool, pa.total_allocated_bytes(), pool))
            time.sleep(0.1)

    poller = threading.Thread(target=poll, daemon=True)
    t0 = time.time()
    poller.start()
    reports.run(Home(home), name, trace=trace, memory_limit=limit)
    done.set()
    poller.join()
    if not samples:
        sys.exit("the report ended before the first sample")
    peak = max(samples, key=lambda s: s[1])
    rss, in_pool, arrow = peak[1], peak[2], peak[3]
    print(f"{name} on {home}: wall {time.time() - t0:.1f} s, {len(samples)} samples")
    print(
        f"peak RSS {rss / MIB:,.0f} MiB = pool {in_pool / MIB:,.0f} + Arrow {arrow / MIB:,.0f}"
        f" + outside both {(rss - in_pool - arrow) / MIB:,.0f} MiB"
    )
    print(
        "  pool then, by tag (MiB):",
        {k: round(v / MIB) for k, v in sorted(peak[4].items(), key=lambda kv: -kv[1])},
    )
    top = max(samples, key=lambda s: s[2])
    print(
        f"largest pool {top[2] / MIB:,.0f} MiB (RSS then {top[1] / MIB:,.0f});"
        f" RSS at start {samples[0][1] / MIB:,.0f} MiB"
    )
    for s in samples[:: max(1, len(samples) // 20)]:
        print(
            f"  t={s[0] - t0:6.1f} s  RSS {s[1] / MIB:6,.0f}  pool {s[2] / MIB:6,.0f}"
            f"  Arrow {s[3] / MIB:5,.0f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
