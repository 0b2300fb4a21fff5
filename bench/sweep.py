"""A 1,000,000-point Dress on the Colors sweep (issue 12): points a second on two local processes and on a
two-worker dask LocalCluster, beside the plain loop over the library (the scenario loaded with the point's
settings, checked, its odds computed: nothing shared), in the same run.

The grid is the Wheatfield's 15th Alabama firing at the 20th Maine behind its wall: the firer's stands (1 to
10), the target's stands (1 to 10), the range (50 distances, 1.4 to 21 in, the last beyond the 20 in limit),
the discipline pass mark (3 to 12), the target's discipline (-2 to 7) and whether it is disordered. The plain
loop is measured on a random sample of the points (a million of them would take hours), its rate reported as
points a second, and its rows compared with the sweep's. ``RANGEFIRE_BENCH_SWEEP_POINTS`` shrinks the grid (in
steps of 100,000: fewer target stands); run alone with ``python bench/sweep.py``.
"""

from __future__ import annotations

import logging
import os
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "src" / "rangefire" / "examples" / "wheatfield.yaml"
#: Points of the plain loop's sample.
SAMPLE = 200


def grid_text(points: int) -> str:
    target_stands = max(1, min(10, round(points / 100_000)))
    return f"""
scenario: {EXAMPLE}
attacker: 15th-alabama
target: 20th-maine
axes:
  - {{path: units.15th-alabama.stands, range: {{from: 1, to: 10, step: 1}}}}
  - {{path: units.20th-maine.stands, range: {{from: 1, to: {target_stands}, step: 1}}}}
  - {{path: units.15th-alabama.position, range: {{from: [10, 1.4], to: [10, 21], step: [0, 0.4]}}}}
  - {{path: options.discipline_pass, range: {{from: 3, to: 12, step: 1}}}}
  - {{path: units.20th-maine.discipline, range: {{from: -2, to: 7, step: 1}}}}
  - {{path: units.20th-maine.disordered, values: [false, true]}}
"""


def plain_loop(sweep: object, points: list[int]) -> tuple[float, list[dict[str, object]]]:
    """Seconds the plain loop takes over these points, and its rows."""
    from rangefire.analysis.sweep import plain_rows

    start = time.perf_counter()
    rows = plain_rows(sweep, points)  # type: ignore[arg-type]
    return time.perf_counter() - start, rows


def run(points: int | None = None) -> bool:
    import pyarrow.parquet as pq
    from dask.distributed import Client, LocalCluster

    from rangefire.analysis.sweep import load_grid
    from rangefire.analysis.sweep_run import run_sweep

    points = points or int(os.environ.get("RANGEFIRE_BENCH_SWEEP_POINTS", "1000000"))
    with tempfile.TemporaryDirectory() as folder:
        grid = Path(folder) / "grid.yaml"
        grid.write_text(grid_text(points))
        sweep = load_grid(grid)
        print(f"\nDress on the Colors sweep, {sweep.points:,} points (firer's and target's stands, 50 ranges, pass "
              "mark, discipline, disorder), exact odds to Parquet:")
        local = run_sweep(sweep, Path(folder) / "local.parquet", workers=2)
        workers_peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(f"  2 local processes              {local.points / local.seconds:12,.0f} points/s   "
              f"{local.seconds:7.1f} s, {local.chunks} chunks; a worker's peak memory {workers_peak:,.0f} MiB")
        started = time.perf_counter()
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                          silence_logs=logging.ERROR) as cluster, \
                Client(cluster) as client:
            up = time.perf_counter() - started
            on_cluster = run_sweep(sweep, Path(folder) / "cluster.parquet", client=client)
        print(f"  dask LocalCluster, 2 workers   {on_cluster.points / on_cluster.seconds:12,.0f} points/s   "
              f"{on_cluster.seconds:7.1f} s (the cluster's start, {up:.1f} s, apart)")
        table = pq.read_table(Path(folder) / "local.parquet")
        same = table.equals(pq.read_table(Path(folder) / "cluster.parquet"))
        sample = sorted(random.Random(12).sample(range(sweep.points), min(SAMPLE, sweep.points)))
        seconds, rows = plain_loop(sweep, sample)
        agree = rows == table.take(sample).to_pylist()
        plain = len(sample) / seconds
        print(f"  plain loop over the library    {plain:12,.0f} points/s   (a sample of {len(sample)} points, one "
              f"process: load with settings, check, odds)")
        print(f"  ratio: local {local.points / local.seconds / plain:,.0f}x, cluster "
              f"{on_cluster.points / on_cluster.seconds / plain:,.0f}x the plain loop; cluster identical to local: "
              f"{same}; sample identical to the plain loop: {agree}")
        print(f"  a million points at the plain loop's rate: {1_000_000 / plain / 3600:.1f} hours on one process")
    return same and agree


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "src"))
    sys.exit(0 if run() else 1)
