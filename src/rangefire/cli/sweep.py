"""``rangefire sweep GRID --out FILE``: a grid of scenario values, every point's exact odds, to Parquet.

pyarrow (and dask, with ``--scheduler``) are imported when the command runs, never at start-up.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from rangefire.cli.common import JsonOpt, _emit, app, number_option, option_named, out, text, user_errors, whole_number
from rangefire.core import RangefireError

if TYPE_CHECKING:
    from rich.progress import Progress

GridArg = Annotated[Path, typer.Argument(help="grid file (.yaml, .toml or .json): scenario, attacker, axes, record",
                                         show_default=False)]
OutOpt = Annotated[str, typer.Option("--out", "-o", metavar="FILE", help="the Parquet file to write (one row a point)",
                                     show_default=False)]
# numbers read as text, so that a value that is none is refused in our words (see whole_number)
WorkersOpt = Annotated[Optional[str], typer.Option("--workers", "-w", metavar="INTEGER",  # noqa: UP045
                                                   help="local processes (default: one a CPU)", show_default=False)]
SchedulerOpt = Annotated[Optional[str], typer.Option("--scheduler", help="run on the dask.distributed cluster "  # noqa: UP045
                                                     "whose scheduler is at tcp://HOST:PORT", show_default=False)]
ChunkOpt = Annotated[Optional[str], typer.Option("--chunk-size", metavar="INTEGER", show_default=False,  # noqa: UP045
                                                 help="points a chunk (default: at most 10,000, eight chunks a "
                                                      "worker or more)")]
TimeoutOpt = Annotated[str, typer.Option("--connect-timeout", metavar="FLOAT",
                                         help="seconds to wait for the scheduler")]

#: More local processes than this are refused (a sweep's work is CPU-bound: more than the CPUs only waits).
MAX_WORKERS = 256


@app.command()
def sweep(grid: GridArg, out_file: OutOpt, workers_text: WorkersOpt = None, scheduler: SchedulerOpt = None,
          chunk_text: ChunkOpt = None, timeout_text: TimeoutOpt = "10", as_json: JsonOpt = False) -> None:
    """Every point of a grid (the paths of --set and --vary: units.A.stands, options...): exact odds as fractions and
    floats, one row a point, in chunks that an interrupted run resumes from; on local processes or a dask
    cluster."""
    import os

    with user_errors(as_json):
        from rangefire.cli.writing import typed_path

        out_path = typed_path("--out", out_file)  # the rest of what a sweep may write is the sweep's to check
        workers, chunk_size = whole_number("--workers", workers_text), whole_number("--chunk-size", chunk_text)
        connect_timeout = number_option("--connect-timeout", timeout_text)
        if workers is not None and not 1 <= workers <= MAX_WORKERS:
            raise RangefireError(f"--workers {workers}: must be 1 to {MAX_WORKERS}")
        if chunk_size is not None and not 1 <= chunk_size <= 1_000_000:
            raise RangefireError(f"--chunk-size {chunk_size}: must be 1 to 1,000,000")
        if scheduler is not None and workers is not None:
            raise RangefireError("--workers is for local processes; a cluster's workers are its own (drop one)")
        if not 0 < connect_timeout <= 600:
            raise RangefireError(f"--connect-timeout {connect_timeout:g}: must be more than 0 and at most 600 s")
        from rangefire.analysis.sweep import load_grid
        from rangefire.analysis.sweep_run import (
            check_out,
            connect,
            needs_pyarrow,
            parts_folder,
            run_sweep,
            scheduler_address,
        )

        if scheduler is not None and not scheduler.strip():
            raise RangefireError("--scheduler: the address is empty; give tcp://HOST:PORT")
        with option_named("--scheduler"):
            if scheduler is not None:
                scheduler_address(scheduler)

        shown = _Shown(quiet=as_json)
        client = None
        try:
            needs_pyarrow()
            planned = load_grid(grid)
            with option_named("--out"):  # before the scheduler is asked, or anything made
                check_out(out_path)
            client = connect(scheduler, connect_timeout) if scheduler is not None else None
            report = run_sweep(planned, out_path, workers=workers or os.cpu_count() or 1, client=client,
                               chunk_size=chunk_size, progress=shown.update)
        except KeyboardInterrupt:
            shown.stop()
            kept = parts_folder(out_path)
            said = (f"the chunks written are kept in {kept}; the same command resumes from them"
                    if any(kept.glob("part-*.parquet")) else "no chunk was written")
            raise _Interrupted(f"interrupted: {said}") from None
        finally:
            shown.stop()
            if client is not None:
                client.close()
    if as_json:
        _emit({"sweep": report.to_dict()})
        return
    rate = report.computed_points / report.seconds if report.seconds else 0
    resumed = f", {report.resumed_chunks} of them resumed from an interrupted run" if report.resumed_chunks else ""
    out.print(text(f"{_count(report.points, 'point')} in {_count(report.chunks, 'chunk')}{resumed}, on {report.where}: "
                   f"{report.seconds:.1f} s, {rate:,.0f} points a second"))
    out.print(text(f"written to {report.out} ({len(report.columns)} columns: {', '.join(report.columns[:6])}, ...)"))


ResultsArg = Annotated[Path, typer.Argument(help="a Parquet file of results: a sweep's --out, or a table's --parquet",
                                            show_default=False)]
ChartOpt = Annotated[str, typer.Option("--out", "-o", metavar="FILE", help="the chart to write (.png, .svg, .pdf)",
                                       show_default=False)]
MetricOpt = Annotated[Optional[str], typer.Option("--metric", metavar="COLUMN", help="the quantity drawn, a column of the file: OUTCOME_mean, OUTCOME_at_least_N, an event... (default: the main outcome's mean)")]  # noqa: UP045, E501
XOpt = Annotated[Optional[str], typer.Option("--x", metavar="PATH", help="the path on the x axis (default: the first varied whose values are numbers)")]  # noqa: UP045, E501
YOpt = Annotated[Optional[str], typer.Option("--y", metavar="PATH", help="a second path, on the y axis: a heatmap of the quantity over --x and --y")]  # noqa: UP045, E501
AtOpt = Annotated[Optional[list[str]], typer.Option("--at", metavar="PATH=VALUE", help="only the rows where PATH has this value (repeatable); the other paths are lines and panels")]  # noqa: UP045, E501


@app.command()
def plot(results: ResultsArg, out_file: ChartOpt, metric: MetricOpt = None, x: XOpt = None, y: YOpt = None,
         at: AtOpt = None, as_json: JsonOpt = False) -> None:
    """Chart a sweep's (or a table's) results: a quantity against one path varied, a line per value of the
    others (panels where they are many), or with --y a heatmap over two; --at fixes a path at a value. The
    heading names the attack, the battle and the house rules in force."""
    with user_errors(as_json):
        from rangefire.cli.writing import check_output

        chart = check_output("--out", out_file, "chart", reading=(results,))  # before the file is read
        from rangefire.analysis.plots import write_figure
        from rangefire.analysis.results_plot import parse_at, read_results, results_chart
        from rangefire.analysis.sweep_run import needs_pyarrow

        needs_pyarrow()
        found = read_results(results)
        fig, drawn = results_chart(found, metric=metric, x=x, y=y, at=parse_at(at or [], found))
        write_figure(fig, chart)
    if as_json:
        _emit({"chart": str(chart), **drawn})
        return
    what = f"{drawn['metric']} over {drawn['x']} and {drawn['y']}" if drawn["y"] else \
        f"{drawn['metric']} against {drawn['x']}"
    out.print(text(f"chart of {what} ({drawn['points']:,} points) written to {chart}"))


def _count(n: int, word: str) -> str:
    """``1 point``, ``120 points``."""
    return f"{n:,} {word}{'' if n == 1 else 's'}"


class _Interrupted(RangefireError):
    """Ctrl-C: the sweep stopped, its chunks kept."""

    exit_code = 130
    kind = "interrupted"


class _Shown:
    """The progress bar on stderr, with the points a second and the time left; nothing with ``--json`` or
    when stderr is not a terminal. Started at the first report (after the workers are)."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet or not sys.stderr.isatty()
        self.bar: Progress | None = None
        self.task: Any = None
        self.started = time.perf_counter()

    def update(self, done: int, total: int) -> None:
        if self.quiet:
            return
        if self.bar is None:
            from rich.console import Console

            from rangefire.cli.progress import bar

            # a console of its own: the shared one is made at its first use, and Progress needs the real thing
            self.bar = bar(Console(stderr=True, highlight=False, emoji=False), "rate", transient=False)
            self.task = self.bar.add_task("sweep", total=total, completed=done, rate="")
            self.first = done
            self.bar.start()
        elapsed = time.perf_counter() - self.started
        rate = f"{(done - self.first) / elapsed:,.0f}/s" if done > self.first and elapsed > 0 else ""
        self.bar.update(self.task, completed=done, rate=rate)

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None
