"""The naive baseline of the DAG reports: batch_task.csv parsed in plain Python and every job's
critical path walked with networkx.

Usage: python -m bench.probes.alibaba_naive_dag BATCH_TASK.csv"""


def main() -> None:
    import csv
    import json
    import re
    import sys
    import time

    import networkx as nx

    t0 = time.perf_counter()
    CORE = re.compile(r"([A-Za-z]+)([0-9]+)((?:_[0-9]+)*)")
    STG = re.compile(r"_Stg[0-9]+$")
    OPEN = ("Running", "Waiting", "Ready")
    jobs = {}
    with open(sys.argv[1], newline="") as fh:
        for name, _num, job, _type, status, start, end, _cpu, _mem in csv.reader(fh):
            if name.startswith("task_") or name == "MergeTask":
                continue
            m = CORE.fullmatch(STG.sub("", name.rstrip("_")))
            if m is None:
                continue
            tid = int(m.group(2))
            parents = {int(x) for x in m.group(3).split("_")[1:]}
            s = int(start) if start else 0
            e = int(end) if end else None
            # A task still Running / Waiting / Ready has not ended: never timed.
            run = e - s if s > 0 and e is not None and e >= s and status not in OPEN else None
            nodes = jobs.setdefault(job, {})
            old = nodes.get(tid)
            if old is None:
                nodes[tid] = [run, run is not None, parents]
            else:  # a task id named twice: one node, its longest run, known only if all are
                if run is not None and (old[0] is None or run > old[0]):
                    old[0] = run
                old[1] = old[1] and run is not None
                old[2] |= parents
    t1 = time.perf_counter()
    status = {"ok": 0, "cycle": 0, "unknown_times": 0}
    total, best, best_job = 0.0, -1.0, None
    for job, nodes in jobs.items():
        g = nx.DiGraph()
        g.add_nodes_from(nodes)
        g.add_edges_from((p, t) for t, v in nodes.items() for p in v[2] if p != t and p in nodes)
        if not nx.is_directed_acyclic_graph(g):
            status["cycle"] += 1
            continue
        if not all(v[1] for v in nodes.values()):
            status["unknown_times"] += 1
            continue
        longest = {}
        for t in nx.topological_sort(g):
            longest[t] = nodes[t][0] + max((longest[p] for p in g.predecessors(t)), default=0)
        cp = max(longest.values())
        status["ok"] += 1
        total += cp
        if cp > best:
            best, best_job = cp, job
    t2 = time.perf_counter()
    print(
        "\n@@JSON "
        + json.dumps(
            {
                "status": status,
                "mean": total / max(status["ok"], 1),
                "max": best,
                "max_job": best_job,
                "read_parse_s": t1 - t0,
                "graphs_s": t2 - t1,
                "networkx": nx.__version__,
            }
        )
    )


if __name__ == "__main__":
    main()
