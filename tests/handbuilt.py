"""Hand-built traces in the real raw formats, for the cases the bundled sample does not have:
a censored production service, a folder with a missing part, Alibaba tasks that never ended and
DAGs whose times contradict each other. Each builder writes raw files under ``src`` and says in
its docstring what it holds, so a test can work its expected values out by hand."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import task_row, write_gz

S = 1_000_000  # microseconds per second
SUBMIT, SCHEDULE, EVICT, FAIL, FINISH, KILL, LOST, UPD_PENDING, UPD_RUNNING = range(9)


def censored_google2011(src: Path) -> Path:
    """One part. Window = [1000 s, 5000 s] (the smallest and largest in-window times) = 4000 s.
    S  job 10, prio 9 (production), cpu 0.5 mem 0.25: SUBMIT and SCHEDULE at time 0 (before the
       window), no end: a service running through the whole window -> 4000 s observed.
    B  job 20, prio 0 (free), cpu 0.1 mem 0.1: 1000 s SUBMIT+SCHEDULE, 3000 s FINISH -> 2000 s.
    C  job 30, prio 4 (middle), cpu 0.2 mem 0.2: first event EVICT on machine 7 at 2000 s
       (scheduled before the data) -> 2000 - 1000 = 1000 s observed.
    D  job 40, prio 2 (middle), cpu 0.3 mem 0.1: SUBMIT 4000 s, SCHEDULE 4500 s, no end -> 500 s.
    E  job 50, prio 0 (free): SUBMIT at 5000 s, never scheduled (pending at the end)."""
    write_gz(
        src / "task_events" / "part-00000-of-00001.csv.gz",
        [
            task_row(0, 10, 0, SUBMIT, prio=9, cpu="0.5", mem="0.25"),
            task_row(0, 10, 0, SCHEDULE, machine=1, prio=9, cpu="0.5", mem="0.25"),
            task_row(1000 * S, 20, 0, SUBMIT, prio=0, cpu="0.1", mem="0.1"),
            task_row(1000 * S, 20, 0, SCHEDULE, machine=2, prio=0, cpu="0.1", mem="0.1"),
            task_row(2000 * S, 30, 0, EVICT, machine=7, prio=4, cpu="0.2", mem="0.2"),
            task_row(3000 * S, 20, 0, FINISH, machine=2, prio=0, cpu="0.1", mem="0.1"),
            task_row(4000 * S, 40, 0, SUBMIT, prio=2, cpu="0.3", mem="0.1"),
            task_row(4500 * S, 40, 0, SCHEDULE, machine=3, prio=2, cpu="0.3", mem="0.1"),
            task_row(5000 * S, 50, 0, SUBMIT, prio=0, cpu="0.1", mem="0.1"),
        ],
    )
    return src


def gapped_google2011(src: Path) -> Path:
    """task_events parts 0, 1, 3 of four; part 2 (times 2000-3000 s) is not there. Its lost events
    are marked [] below.
    task 1: SUBMIT 700 s (part 0), [SCHEDULE 2500 s], EVICT 3100 s (part 3) -> looks like SUBMIT -> EVICT
    task 2: SUBMIT 800, SCHEDULE 900 (part 0), [FINISH 2200], SUBMIT 3200 (part 3) -> SCHEDULE -> SUBMIT
    task 3: SUBMIT 1100, EVICT 1200 (part 1): a real eviction from pending, no gap in between
    task 4: [SUBMIT 2100, SCHEDULE 2150], FINISH 3300 (part 3) -> (start) -> FINISH"""
    events = src / "task_events"
    write_gz(
        events / "part-00000-of-00004.csv.gz",
        [
            task_row(700 * S, 1, 0, SUBMIT),
            task_row(800 * S, 2, 0, SUBMIT),
            task_row(900 * S, 2, 0, SCHEDULE, machine=5),
        ],
    )
    write_gz(
        events / "part-00001-of-00004.csv.gz",
        [task_row(1100 * S, 3, 0, SUBMIT), task_row(1200 * S, 3, 0, EVICT)],
    )
    write_gz(
        events / "part-00003-of-00004.csv.gz",
        [
            task_row(3100 * S, 1, 0, EVICT, machine=6),
            task_row(3200 * S, 2, 0, SUBMIT),
            task_row(3300 * S, 4, 0, FINISH, machine=6),
        ],
    )
    return src


def phased_google2011(src: Path) -> Path:
    """task_events parts 0, 1, 3 of four; part 2 (times 2000-3000 s) is not there. Each attempt has
    one phase inside observed time and the other across the missing part, so each phase is judged
    on its own interval (wait: SUBMIT -> SCHEDULE; run: SCHEDULE -> end):
    task 1: SUBMIT 700, SCHEDULE 710 (part 0), FINISH 3100 (part 3): wait 10 s observed, run across
    task 2: SUBMIT 1100 (part 1), SCHEDULE 3150, FINISH 3200 (part 3): wait across, run 50 s observed
    task 3: SUBMIT 800, SCHEDULE 830, FINISH 900 (part 0): wait 30 s, run 70 s, no gap
    task 4: SUBMIT 1500 (part 1), KILL 3300 (part 3), never scheduled: its pending time is across"""
    events = src / "task_events"
    write_gz(
        events / "part-00000-of-00004.csv.gz",
        [
            task_row(700 * S, 1, 0, SUBMIT),
            task_row(710 * S, 1, 0, SCHEDULE, machine=5),
            task_row(800 * S, 3, 0, SUBMIT),
            task_row(830 * S, 3, 0, SCHEDULE, machine=5),
            task_row(900 * S, 3, 0, FINISH, machine=5),
        ],
    )
    write_gz(
        events / "part-00001-of-00004.csv.gz",
        [task_row(1100 * S, 2, 0, SUBMIT), task_row(1500 * S, 4, 0, SUBMIT)],
    )
    write_gz(
        events / "part-00003-of-00004.csv.gz",
        [
            task_row(3100 * S, 1, 0, FINISH, machine=5),
            task_row(3150 * S, 2, 0, SCHEDULE, machine=6),
            task_row(3200 * S, 2, 0, FINISH, machine=6),
            task_row(3300 * S, 4, 0, KILL),
        ],
    )
    return src


def odd_alibaba2018(src: Path) -> Path:
    """batch_task (task_name, instance_num, job_name, task_type, status, start, end, plan_cpu, plan_mem):
    j_a  M1 100-300, M2_1 150-250: the child starts 150 s before its parent ends; critical path
         200 + 100 = 300 s > job time 300 - 100 = 200 s
    j_b  M1 100-200, M2_1 Running 250-250 (end = start: not an end): not timed; edge 250 - 200 = 50
    j_c  M1 start 0 (unknown) end 100, M2_1 150-200: not timed; edge 150 - 100 = 50
    j_d  M1_2 10-20, M2_1 30-40: a cycle, its edges out of the intervals
    j_e  M1 Waiting 0-0: start unknown, not ended
    j_f  M1 100-200, M2_1 210-300: critical path 100 + 90 = 190, job time 200, communication 10, edge 10
    container_meta: app_a and app_b with two containers each (counts that do not vary); c_1..c_3 at
    time_stamp 0 (existed at the trace start), c_4 at 100.
    machine_usage: m_1 sampled in hours 0 (cpu 40) and 2 (cpu 60) only: hour 1 has no sample."""
    src.mkdir(parents=True, exist_ok=True)
    tasks = [
        "M1,1,j_a,1,Terminated,100,300,100,0.5",
        "M2_1,1,j_a,1,Terminated,150,250,100,0.5",
        "M1,1,j_b,1,Terminated,100,200,100,0.5",
        "M2_1,1,j_b,1,Running,250,250,100,0.5",
        "M1,1,j_c,1,Terminated,0,100,100,0.5",
        "M2_1,1,j_c,1,Terminated,150,200,100,0.5",
        "M1_2,1,j_d,1,Terminated,10,20,100,0.5",
        "M2_1,1,j_d,1,Terminated,30,40,100,0.5",
        "M1,1,j_e,1,Waiting,0,0,100,0.5",
        "M1,1,j_f,1,Terminated,100,200,100,0.5",
        "M2_1,1,j_f,1,Terminated,210,300,100,0.5",
    ]
    (src / "batch_task.csv").write_text("\n".join(tasks) + "\n")
    (src / "container_meta.csv").write_text(
        "c_1,m_1,0,app_a,started,400,400,1.5\nc_2,m_1,0,app_a,started,400,400,1.5\n"
        "c_3,m_2,0,app_b,started,400,400,1.5\nc_4,m_2,100,app_b,started,400,400,1.5\n"
    )
    (src / "machine_usage.csv").write_text("m_1,10,40,50,,,1,1,1\nm_1,7300,60,70,,,1,1,1\n")
    return src


# (test_paper_reports_alibaba.py) jobs shaped as the Alibaba paper draws them
PAPER_ALIBABA_TASKS = [
    # task_name, instance_num, job, type, status, start, end
    ("M4", 1, "j_2041", "Terminated", 100, 105),
    ("M1_4", 1, "j_2041", "Terminated", 105, 125),
    ("M2_4", 1, "j_2041", "Terminated", 105, 115),
    ("M3_4", 1, "j_2041", "Terminated", 108, 163),
    ("M5_4", 1, "j_2041", "Terminated", 105, 130),
    ("R6_1_2_3_5", 1, "j_2041", "Terminated", 165, 205),
    ("M1", 1, "j_a", "Terminated", 10, 50),
    ("M2", 1, "j_a", "Terminated", 10, 30),
    ("R3_1_2", 1, "j_a", "Terminated", 45, 80),
    ("M4_3", 1, "j_a", "Running", 85, 85),
    ("M5_4", 1, "j_a", "Terminated", 100, 120),
    ("M1", 1, "j_d", "Terminated", 300, 310),
    ("M2_1", 1, "j_d", "Terminated", 320, 350),
    ("M1", 1, "j_e", "Terminated", 300, 340),
    ("M2_1", 1, "j_e", "Terminated", 320, 350),
    ("M1_2", 1, "j_b", "Terminated", 10, 20),
    ("M2_1", 1, "j_b", "Terminated", 20, 30),
    ("M1", 1, "j_odd", "Terminated", 10, 20),
    ("M2_3", 1, "j_odd", "Terminated", 20, 30),
    ("M3_2", 1, "j_odd", "Terminated", 30, 40),
    ("M4_9", 1, "j_odd", "Terminated", 10, 15),
    ("M5_1_5", 1, "j_odd", "Terminated", 20, 25),
    ("task_QUFB==", 3, "j_n", "Terminated", 500, 600),
    ("task_QkJC==", 1, "j_n", "Terminated", 500, 550),
    ("MergeTask", 1, "j_n", "Terminated", 600, 610),
]
PAPER_ALIBABA_INSTANCES = [
    # task, job, start, end, machine (one instance each unless repeated)
    ("M4", "j_2041", 101, 105, "m_1"),
    ("M1_4", "j_2041", 108, 125, "m_1"),
    ("M2_4", "j_2041", 106, 115, "m_2"),
    ("M3_4", "j_2041", 110, 163, "m_2"),
    ("M5_4", "j_2041", 105, 130, "m_3"),
    ("R6_1_2_3_5", "j_2041", 166, 205, "m_1"),
    ("M1", "j_a", 10, 50, "m_1"),
    ("M2", "j_a", 12, 30, "m_2"),
    ("R3_1_2", "j_a", 45, 80, "m_3"),
    ("M4_3", "j_a", 86, 86, "m_3"),
    ("M5_4", "j_a", 101, 120, "m_3"),
    ("M1", "j_d", 300, 310, "m_2"),
    ("M2_1", "j_d", 321, 350, "m_2"),
    ("M1", "j_e", 300, 340, "m_3"),
    ("M2_1", "j_e", 320, 350, "m_3"),
    ("M1_2", "j_b", 10, 20, "m_1"),
    ("M2_1", "j_b", 20, 30, "m_1"),
    ("task_QUFB==", "j_n", 500, 600, "m_1455"),
    ("task_QUFB==", "j_n", 505, 590, "m_1455"),
    ("task_QUFB==", "j_n", 510, 580, "m_1455"),
    ("task_QkJC==", "j_n", 500, 550, "m_1"),
    ("MergeTask", "j_n", 600, 610, "m_2"),
]


def paper_alibaba2018(src: Path) -> Path:
    """batch_task and batch_instance only (headerless, the official column order).

    Jobs (times in seconds; "inst" = the first instance start; run = end - start):
      j_2041  the paper's Figure 3 shape: 4 -> 1, 2, 3, 5 -> 6
              M4 100-105 (run 5, inst 101); M1_4 105-125 (20, inst 108); M2_4 105-115 (10, inst 106);
              M3_4 108-163 (55, inst 110); M5_4 105-130 (25, inst 105); R6_1_2_3_5 165-205 (40, inst 166)
              critical path 4 -> 3 -> 6 = 5 + 55 + 40 = 100; job time 205 - 100 = 105; communication 5
      j_a     M1 10-50 (inst 10), M2 10-30 (inst 12), R3_1_2 45-80 (inst 45: 5 s before M1 ends),
              M4_3 Running 85-85 (end unknown, inst 86), M5_4 100-120 (inst 101)
      j_d     M1 300-310 (inst 300), M2_1 320-350 (inst 321): path 40, job 50, communication 10
      j_e     M1 300-340 (inst 300), M2_1 320-350 (inst 320): path 70 > job 50 (starts before its parent ends)
      j_b     M1_2, M2_1: a cycle
      j_odd   M1, M2_3 and M3_2 (a cycle), M4_9 (task 9 does not exist), M5_1_5 (depends on 1 and itself)
      j_n     no DAG: task_QUFB== (3 instances on m_1455), task_QkJC== (1 on m_1), MergeTask (1 on m_2)
    Instances: one per task on the machine named (j_n's task_QUFB== three times on m_1455)."""
    src.mkdir(parents=True, exist_ok=True)
    (src / "batch_task.csv").write_text(
        "".join(f"{n},{k},{j},1,{s},{a},{b},100,0.39\n" for n, k, j, s, a, b in PAPER_ALIBABA_TASKS)
    )
    (src / "batch_instance.csv").write_text(
        "".join(
            f"ins_{i},{t},{j},1,{'Running' if t == 'M4_3' else 'Terminated'},{a},{b},{m},1,1,50,60,0.1,0.2\n"
            for i, (t, j, a, b, m) in enumerate(PAPER_ALIBABA_INSTANCES)
        )
    )
    return src


def notebook_google2019(src: Path) -> Path:
    """Cell a of the 2019 trace, for the official notebook's two definitions (times in seconds).
    machines: m1 capacity 0.5 cpu / 0.5 memory (an UPDATE later says 0.4: the largest counts),
              m2 1.0 / 1.0; the cell's capacity 1.5 / 1.5.
    instances: 100/0 on m1 priority 200 then 360 (highest 360: production, monitoring folded in);
               101/0 on m1 priority 0 (free); 102/0 on m2 priority 110 (best-effort batch);
               103/0 on m2 inside alloc set 900 (left out); 900/0 the alloc set's own instance on
               m2, priority 200 (kept); 104/0 has usage on m2 but no events.
    usage windows (start-end s: cpu, memory): 100/0 600-900: 0.4, 0.1 and 900-1200: 0.3, 0.1;
               101/0 600-900: 0.3, 0.2 and 1000-1100: 0.9, 0.9 (100 s: too short);
               102/0 3700-4000: 0.2, 0.3; 103/0 600-900: 0.5, 0.5 (in an alloc set);
               900/0 600-900: 0.6, 0.6; 104/0 600-900: 0.1, 0.05."""
    cell = src / "clusterdata_2019_a"

    def write(name: str, rows: list[dict]) -> None:
        cell.mkdir(parents=True, exist_ok=True)
        (cell / f"{name}-000000000000.json").write_text("".join(json.dumps(r) + "\n" for r in rows))

    write(
        "machine_events",
        [
            {"time": 0, "machine_id": 1, "type": 0, "capacity": {"cpus": 0.5, "memory": 0.5}},
            {"time": 2000 * S, "machine_id": 1, "type": 2, "capacity": {"cpus": 0.4, "memory": 0.4}},
            {"time": 0, "machine_id": 2, "type": 0, "capacity": {"cpus": 1.0, "memory": 1.0}},
        ],
    )

    def event(t: int, kind: int, job: int, machine: int | None, prio: int, **extra) -> dict:
        row = {"time": t * S, "type": kind, "collection_id": job, "instance_index": 0, "priority": prio}
        if machine is not None:
            row["machine_id"] = machine
        return {**row, "collection_type": 0, **extra}

    write(
        "instance_events",
        [
            event(500, 0, 100, None, 200),
            event(550, 3, 100, 1, 200),
            event(1000, 10, 100, 1, 360),
            event(550, 3, 101, 1, 0),
            event(3650, 3, 102, 2, 110),
            event(550, 3, 103, 2, 200, alloc_collection_id=900),
            event(550, 3, 900, 2, 200, collection_type=1),
        ],
    )

    def usage(job: int, machine: int, start: int, end: int, cpu: float, mem: float, **extra) -> dict:
        row = {"start_time": start * S, "end_time": end * S, "collection_id": job, "instance_index": 0}
        return {**row, "machine_id": machine, "average_usage": {"cpus": cpu, "memory": mem}, **extra}

    write(
        "instance_usage",
        [
            usage(100, 1, 600, 900, 0.4, 0.1),
            usage(100, 1, 900, 1200, 0.3, 0.1),
            usage(101, 1, 600, 900, 0.3, 0.2),
            usage(101, 1, 1000, 1100, 0.9, 0.9),
            usage(102, 2, 3700, 4000, 0.2, 0.3),
            usage(103, 2, 600, 900, 0.5, 0.5, alloc_collection_id=900),
            usage(900, 2, 600, 900, 0.6, 0.6, collection_type=1),
            usage(104, 2, 600, 900, 0.1, 0.05),
        ],
    )
    return src


# trace, builder: the hand-built homes that the golden files also cover (tests/golden/<case>/)
CASES = {
    "censored": ("google2011", censored_google2011),
    "gapped": ("google2011", gapped_google2011),
    "phased": ("google2011", phased_google2011),
    "notebook": ("google2019", notebook_google2019),
    "odd_alibaba": ("alibaba2018", odd_alibaba2018),
    "paper_alibaba": ("alibaba2018", paper_alibaba2018),
}
