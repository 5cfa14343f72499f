"""The benchmarks (run from the project root: `.venv/bin/python -m bench.bench_ingest` ...), the
harness they share (bench/harness.py) and the programs they measure (bench/probes/)."""
