"""`autorecover simulate`: how much training time each recovery policy saves, on a simulated
fleet (docs/simulation.md), or what a policy would have done on a real engine's history.

    autorecover simulate --gpus 16384 --days 54            # the comparison table
    autorecover simulate --json --plot ettr.png            # one JSON object, and a PNG
    autorecover simulate --from-store sqlite:///autorecover.db --hardware-policy site.toml

The simulator is imported when the command runs, not when `autorecover` starts.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click

from autorecover.cli.deferred import DeferredChoice


@click.command("simulate")
@click.option("--gpus", type=click.IntRange(8, 1_048_576), default=16_384, show_default=True,
              help="GPUs the training jobs use (spares are added per the world file)")  # fmt: skip
@click.option("--days", type=click.FloatRange(0.01, 3650), default=54.0, show_default=True)
@click.option("--seed", type=int, default=1, show_default=True)
@click.option(
    "--policy",
    "policies",
    multiple=True,
    type=DeferredChoice("autorecover.simulation.running:POLICIES"),
    help="a policy to run (repeat; default: all of them)",
)
@click.option("--study", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="a failure study file (default: Llama 3, Table 5)")  # fmt: skip
@click.option("--world", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="the world's assumptions (default: the built-in world.toml)")  # fmt: skip
@click.option("--rate-scale", type=click.FloatRange(0.0, 1000.0), default=1.0, show_default=True,
              help="multiply every failure rate")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
@click.option("--plot", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="write a PNG plot of the comparison here")  # fmt: skip
@click.option("--progress/--no-progress", default=None,
              help="a progress bar on stderr (default: when stderr is a terminal)")  # fmt: skip
@click.option("--from-store", "store_url", default=None,
              help="replay a real engine's store (sqlite:///PATH, postgresql://...) instead")  # fmt: skip
@click.option("--hardware-policy", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="with --from-store: the hardware policy to try (TOML, merged by key)")  # fmt: skip
@click.option("--job-policy", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="with --from-store: the job policy to try (TOML [job] table)")  # fmt: skip
def simulate_cmd(
    gpus: int, days: float, seed: int, policies: tuple[str, ...], study: Path | None,
    world: Path | None, rate_scale: float, as_json: bool, plot: Path | None,
    progress: bool | None, store_url: str | None, hardware_policy: Path | None,
    job_policy: Path | None,
) -> None:  # fmt: skip
    """Compare recovery policies on a simulated fleet (ETTR, lost GPU-hours, quarantines)."""
    if store_url is not None:
        _replay(store_url, hardware_policy, job_policy, as_json)
        return
    from autorecover.simulation.progress import Bar
    from autorecover.simulation.reports import report, table
    from autorecover.simulation.running import POLICIES, Options, prepare, run_all
    from autorecover.simulation.settings import SettingsError, load_study, load_world

    try:
        options = Options(gpus, days, seed, policies or tuple(POLICIES), rate_scale)
        run = prepare(options, load_study(study), load_world(world))
    except (SettingsError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    show = sys.stderr.isatty() if progress is None else progress
    bar = Bar(sys.stderr) if show else None
    began = time.perf_counter()
    outcomes = run_all(run, bar.update if bar else None)
    if bar is not None:
        bar.done()
    doc = report(run, outcomes, time.perf_counter() - began)
    if plot is not None:
        from autorecover.simulation.plotting import write_plot

        write_plot(doc, plot)
    if as_json:
        click.echo(json.dumps(doc))
    else:
        click.echo(table(doc))
        if plot is not None:
            click.echo(f"plot: {plot}")


def _replay(url: str, hardware: Path | None, job: Path | None, as_json: bool) -> None:
    from autorecover.simulation.replaying import ReplayError, replay, replay_text

    try:
        doc = replay(url, hardware, job)
    except ReplayError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(json.dumps(doc) if as_json else replay_text(doc))
