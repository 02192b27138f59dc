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
              help="replay a real engine's store (sqlite:///PATH, postgresql://...)")  # fmt: skip
@click.option("--hardware-policy", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="with --from-store: the hardware policy to try (TOML)")  # fmt: skip
@click.option("--job-policy", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="with --from-store: the job policy to try (TOML [job] table)")  # fmt: skip
@click.option("--fleet-size", type=click.IntRange(1), default=None,
              help="with --from-store: the fleet's size, for the breaker's fractions")  # fmt: skip
@click.option("--job-override", "job_overrides", multiple=True, metavar="FIELD=VALUE",
              help="a job recovery setting the simulated jobs carry (4, 4b; repeat)")  # fmt: skip
def simulate_cmd(
    gpus: int, days: float, seed: int, policies: tuple[str, ...], study: Path | None,
    world: Path | None, rate_scale: float, as_json: bool, plot: Path | None,
    progress: bool | None, store_url: str | None, hardware_policy: Path | None,
    job_policy: Path | None, fleet_size: int | None, job_overrides: tuple[str, ...],
) -> None:  # fmt: skip
    """Compare recovery policies on a simulated fleet (ETTR, lost GPU-hours, quarantines)."""
    if store_url is not None:
        _replay(store_url, hardware_policy, job_policy, fleet_size, as_json)
        return
    from autorecover.simulation.progress import Bar
    from autorecover.simulation.reports import report, table
    from autorecover.simulation.running import POLICIES, Options, prepare, run_all
    from autorecover.simulation.settings import SettingsError, load_study, load_world

    try:
        overrides = tuple(_override(o) for o in job_overrides)
        options = Options(gpus, days, seed, policies or tuple(POLICIES), rate_scale, overrides)
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


def _override(text: str) -> tuple[str, object]:
    """`FIELD=VALUE` as a job's own setting: a number, true/false, or a list `a,b,c`."""
    name, sep, raw = text.partition("=")
    if not sep or not name:
        raise click.BadParameter(f"{text!r}: expected FIELD=VALUE", param_hint="--job-override")
    if raw in ("true", "false"):
        return name, raw == "true"
    try:
        values = [float(v) if "." in v else int(v) for v in raw.split(",")]
    except ValueError:
        raise click.BadParameter(f"{text!r}: VALUE must be a number, true/false or a list "
                                 "of numbers", param_hint="--job-override") from None  # fmt: skip
    return name, values if "," in raw else values[0]


def _replay(
    url: str, hardware: Path | None, job: Path | None, fleet: int | None, as_json: bool
) -> None:
    from autorecover.simulation.replaying import ReplayError, replay, replay_text

    try:
        doc = replay(url, hardware, job, fleet)
    except ReplayError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(json.dumps(doc) if as_json else replay_text(doc))
