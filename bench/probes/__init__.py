"""The programs the benchmarks measure in fresh processes (`python -m bench.probes.<name> ARGS`):
real modules, so that the linter reads them; each imports only what it measures, so that the
import time and peak RSS a bench reports are its own."""
