"""bench/bench_stream.py's disk projection: the streamed whole-trace run refuses to start or go on
when the rest of it does not fit (expected values worked out by hand from the state below)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/ is a package of the checkout
from bench import bench_stream as bs

# 5 of 20 parts done: 500 MB of gzip became 450 MB of Parquet; the ingest's end held 540 MB (90 MB
# of superseded generations, a fifth of the home).
STATE = {
    "scale": 1.0,
    "plan_parts": 500,
    "total_parts": 20,
    "batches": {"0-4": {"parts": 5, "raw_mb": 500.0, "home_growth_mb": 450.0, "home_mb": 450.0,
                        "home_peak_mb": 540.0}},
}  # fmt: skip


def test_projection_from_the_measured_batches(tmp_path):
    # home not made yet (0 MB): 15 parts left x 90 MB = 1,350 MB of Parquet; one raw batch of
    # 5 x 100 MB; superseded generations 0.2 x 1,350 = 270 MB
    p = bs.projection(STATE, tmp_path / "home", tmp_path / "raw", 5)
    assert (p["gz_per_part_mb"], p["parquet_per_part_mb"], p["parts_left"]) == (100.0, 90.0, 15)
    assert p["home_final_mb"] == 1350.0 and p["raw_batch_mb"] == 500.0
    assert p["transient_mb"] == pytest.approx(270.0)
    assert p["peak_mb"] == pytest.approx(2120.0)


@pytest.mark.parametrize(("free", "fits"), [(4119.0, False), (4121.0, True)])
def test_refuses_when_the_rest_does_not_fit(tmp_path, monkeypatch, free, fits):
    # needs 1,350 + 270 + 500 + the 2,000 MB margin = 4,120 MB on the one disk
    monkeypatch.setattr(bs, "free_mb", lambda path: free)

    class Args:
        home, scratch, batch = tmp_path / "home", tmp_path / "raw", 5

    state = dict(STATE)
    if fits:
        bs.refuse_unless_fits(state, Args)
    else:
        with pytest.raises(SystemExit, match="refused"):
            bs.refuse_unless_fits(state, Args)


def test_before_any_batch_the_defaults_scale_with_the_plan(tmp_path):
    # scale 0.1: 50 parts, each 10x longer than a scale-1.0 part (the cluster 10x smaller): the same
    # ~100 MB a part
    state = {"scale": 0.1, "plan_parts": 50, "total_parts": 50}
    p = bs.projection(state, tmp_path / "home", tmp_path / "raw", 10)
    assert p["gz_per_part_mb"] == pytest.approx(bs.DEFAULT_PART_GZ_MB)
    assert p["home_final_mb"] == pytest.approx(50 * bs.DEFAULT_PART_GZ_MB * bs.DEFAULT_PARQUET_PER_GZ)
