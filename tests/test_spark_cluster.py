"""The Spark engine on a real cluster: a standalone master and two workers, each a process of its
own on 127.0.0.1 (started from the pyspark package with bin/spark-class), a driver in another
process, and the executors the workers launch. The fanned-out ingest of the bundled samples and
two reports run there and give DuckDB's rows; the tasks are shown to run in the workers'
executor JVMs, not in the driver's.
"""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import REPO
from test_spark import _ingest_rows, assert_same_rows

from tracewh import reports
from tracewh.home import Home

# One xdist group with tests/test_spark.py: one Spark workload at a time on a test worker. Marked
# `spark` (`make test-spark`, not `make test`): five JVMs, the samples' ingest and two reports cost
# about 100 CPU s (README), beyond what the suite's 5-minute budget has left.
pytestmark = [pytest.mark.xdist_group("spark"), pytest.mark.spark]

DRIVER = Path(__file__).with_name("spark_cluster_driver.py")
WORKERS = 2
# Small JVMs (the machine is shared): the master and workers only schedule; each executor
# converts a sample file or runs a report's tasks on one core.
DAEMON_MEMORY = "256m"
WORKER_MEMORY = "1g"
EXECUTOR_MEMORY = "768m"
DRIVER_MEMORY = "1g"
# Safety nets only: each wait ends as soon as the state it waits for is there.
START_DEADLINE_S = 180
DRIVER_DEADLINE_S = 900


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _spark_class() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent / "bin" / "spark-class"


@dataclass
class Cluster:
    url: str  # spark://127.0.0.1:PORT
    ui: str  # the master's web UI (its /json/ is the cluster's state)
    root: Path  # the folder of every log, work and scratch folder
    env: dict[str, str]  # what a driver process needs (conf dir, scratch, Python)
    procs: list[subprocess.Popen]  # master, then the workers
    driver_block_manager_port: int  # how Spark's list of executors names the driver

    def state(self) -> dict:
        with urllib.request.urlopen(f"{self.ui}/json/", timeout=5) as r:
            return json.load(r)

    def logs(self) -> str:
        return "\n".join(
            f"--- {p.name}\n{p.read_text()[-3000:]}" for p in sorted(self.root.glob("logs/*.log"))
        )


def _start(cmd: list[str], env: dict[str, str], log: Path, cwd: Path | None = None) -> subprocess.Popen:
    # a process group of its own: the teardown signals the JVM and every process it launched
    with log.open("wb") as fh:
        return subprocess.Popen(
            cmd,
            env=env,
            cwd=cwd,
            stdout=fh,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )


def _stop(procs: list[subprocess.Popen]) -> None:
    """SIGTERM to each process group, SIGKILL to those still there after a grace period."""
    for p in procs:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGTERM)
    deadline = time.monotonic() + 20
    for p in procs:
        with contextlib.suppress(subprocess.TimeoutExpired):
            p.wait(max(0.1, deadline - time.monotonic()))
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGKILL)  # the group's other processes (executors) too
        p.wait()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A standalone master and two workers (1 core, 1 GB each); their logs, work folders and
    scratch under the test's tmp; stopped (process groups killed) whatever the test did."""
    root = tmp_path_factory.mktemp("spark_cluster")
    for d in ("logs", "conf", "local", "work"):
        (root / d).mkdir()
    port, ui_port = _free_port(), _free_port()
    env = {
        **os.environ,
        "SPARK_LOCAL_IP": "127.0.0.1",
        "SPARK_CONF_DIR": str(root / "conf"),
        "SPARK_LOCAL_DIRS": str(root / "local"),
        "SPARK_DAEMON_MEMORY": DAEMON_MEMORY,
        "SPARK_NO_DAEMONIZE": "1",
    }
    env.pop("SPARK_HOME", None)  # the pyspark package's own Spark
    master = [str(_spark_class()), "org.apache.spark.deploy.master.Master"]
    master += ["--host", "127.0.0.1", "--port", str(port), "--webui-port", str(ui_port)]
    procs = [_start(master, env, root / "logs" / "master.log")]
    url, ui = f"spark://127.0.0.1:{port}", f"http://127.0.0.1:{ui_port}"
    try:
        for i in range(WORKERS):
            work = root / "work" / f"worker{i}"
            worker = [str(_spark_class()), "org.apache.spark.deploy.worker.Worker"]
            worker += ["--host", "127.0.0.1", "--cores", "1", "--memory", WORKER_MEMORY]
            worker += ["--work-dir", str(work), "--webui-port", str(_free_port()), url]
            procs.append(_start(worker, env, root / "logs" / f"worker{i}.log"))
        # the driver's settings, as a cluster's users keep them (spark-defaults.conf)
        block_manager_port = _free_port()
        defaults = {
            "spark.driver.memory": DRIVER_MEMORY,
            "spark.executor.memory": EXECUTOR_MEMORY,
            "spark.executor.cores": "1",
            "spark.ui.enabled": "false",
            "spark.local.dir": str(root / "local"),
            "spark.driver.blockManager.port": str(block_manager_port),
            "spark.sql.shuffle.partitions": "2",
        }
        (root / "conf" / "spark-defaults.conf").write_text("".join(f"{k} {v}\n" for k, v in defaults.items()))
        c = Cluster(url, ui, root, {**env, "PYSPARK_PYTHON": sys.executable}, procs, block_manager_port)
        deadline = time.monotonic() + START_DEADLINE_S
        while True:
            dead = [p.args for p in procs if p.poll() is not None]
            assert not dead, f"{dead} exited\n{c.logs()}"
            try:
                alive = [w for w in c.state()["workers"] if w["state"] == "ALIVE"]
            except OSError:
                alive = []
            if len(alive) == WORKERS:
                break
            assert time.monotonic() < deadline, (
                f"the workers did not register in {START_DEADLINE_S} s\n{c.logs()}"
            )
            time.sleep(0.5)
        yield c
    finally:
        _stop(procs)


def test_ingest_and_reports_on_a_standalone_cluster(cluster, sample_home, tmp_path):
    """The driver (its own process) ingests the three samples with one Spark task per file on the
    cluster, then runs task-times and ali-dag-timing there: the same rows, rejects and accounting
    as the local ingest of the samples, the same report rows as DuckDB's; the tasks ran in two JVMs
    other than the driver's, each a child of one of the two workers started here."""
    home, out = tmp_path / "home", tmp_path / "driver.pickle"
    cmd = [sys.executable, str(DRIVER), cluster.url, str(home), str(out), str(REPO / "data" / "sample")]
    # a process group of its own: the driver's JVM goes with it whatever happens here
    driver = _start(cmd, cluster.env, tmp_path / "driver.log", cwd=tmp_path)
    try:
        code = driver.wait(DRIVER_DEADLINE_S)
    finally:
        _stop([driver])
    assert code == 0, (tmp_path / "driver.log").read_text()[-4000:] + cluster.logs()
    got = pickle.loads(out.read_bytes())
    print(f"driver seconds: {got['seconds']}")

    # the ingest: what the local ingest of the same samples gives
    local, fanned = _ingest_rows(sample_home), _ingest_rows(Home.resolve(home))
    assert fanned.keys() == local.keys()
    for key in local:
        assert fanned[key] == local[key], key
    # the reports: DuckDB's rows on the same samples
    for (name, trace), rows in got["rows"].items():
        duck = reports.run(sample_home, name, trace=trace, options=reports.get(name).example_options)
        assert duck.rows, f"{name}: the sample has rows for it (else the comparison proves nothing)"
        assert_same_rows(duck, rows, f"{name} {trace} on the cluster")

    # separate processes: the tasks ran in two executor JVMs, neither the driver's, each launched
    # by one of the workers this fixture started
    assert got["master"] == cluster.url
    jvms = dict(got["task_jvms"])  # executor JVM -> its parent
    assert len(jvms) == WORKERS and got["driver_jvm_pid"] not in jvms and got["driver_pid"] not in jvms
    # bin/spark-class ends in `exec java ...`: each worker's pid is its JVM's
    assert sorted(jvms.values()) == sorted(p.pid for p in cluster.procs[1:])
    # Spark's own view: the driver (its block manager at the port the fixture gave it) and the two
    # executors, each at a port of its own
    ports = sorted(int(e.rsplit(":", 1)[1]) for e in got["executors"])
    assert len(set(ports)) == WORKERS + 1 and cluster.driver_block_manager_port in ports
    app = [a for a in cluster.state()["completedapps"] if a["name"] == "tracewh-cluster-test"]
    assert len(app) == 1, cluster.state()
