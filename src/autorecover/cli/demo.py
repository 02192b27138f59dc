"""`autorecover demo`: the local demonstration, live or scripted, and its fault injector.

    autorecover demo                               # live: inject faults from another terminal
    autorecover demo inject xid79 --node node-1    # ... like this
    autorecover demo --scenario all                # scripted: every fault, then a summary

The demo (its simulated cluster, the engine, the training job) is imported when the command
runs, not when `autorecover` starts.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from autorecover.cli.deferred import DeferredChoice

if TYPE_CHECKING:
    from autorecover.demo.scenarios import Outcome
    from autorecover.demo.stack import DemoSettings

DEFAULT_DIR = Path(tempfile.gettempdir()) / "autorecover-demo"


@click.group(invoke_without_command=True)
@click.option(
    "--scenario",
    type=DeferredChoice("autorecover.demo.scenarios:SCENARIOS", extra=("all",)),
    default=None,
    help="run unattended: one fault, or every one, and exit with a summary",
)
@click.option("--nodes", type=click.IntRange(2, 16), default=4, show_default=True)
@click.option(
    "--dir",
    "directory",
    type=click.Path(path_type=Path),
    default=DEFAULT_DIR,
    show_default=True,
    help="the simulated cluster, the job's files, the store",
)
@click.option(
    "--speed",
    type=click.FloatRange(0.1, 10.0),
    default=1.0,
    show_default=True,
    help="training speed: >1 makes steps shorter",
)
@click.option(
    "--timeout",
    "timeout_s",
    type=float,
    default=30.0,
    show_default=True,
    help="seconds a scenario may take before it counts as failed",
)
@click.option(
    "--dashboard",
    default="127.0.0.1:8080",
    show_default=True,
    help="serve the web dashboard of the demo's engine on this loopback HOST:PORT "
    "(no sign-in); 'off': none",
)
@click.option("--crash-after", type=click.Choice(["requeue"]), default=None, hidden=True)
@click.option(
    "--resume-s",
    type=float,
    default=None,
    hidden=True,
    help="restart the engine on --dir (no new job) for this long, then exit",
)
@click.pass_context
def demo(
    ctx: click.Context, scenario: str | None, nodes: int, directory: Path, speed: float,
    timeout_s: float, dashboard: str, crash_after: str | None, resume_s: float | None,
) -> None:  # fmt: skip
    """A simulated GPU cluster on this machine, a real training job, and the engine.

    Without --scenario it runs until Ctrl-C; inject faults with `autorecover demo inject`."""
    if ctx.invoked_subcommand is not None:
        return
    from autorecover.demo.scenarios import SCENARIOS, run_scenario
    from autorecover.demo.stack import DemoSettings

    settings = DemoSettings(nodes=nodes, job_nodes=nodes - 1, step_s=0.03 / speed,
                            dashboard=_dashboard(dashboard))  # fmt: skip
    if resume_s is not None:  # the kill-and-restart test: the engine again, on the same store
        _resume(directory / scenario if scenario else directory, settings, resume_s)
        return
    if scenario is None:
        _live(directory, settings)
        return
    names = SCENARIOS if scenario == "all" else (scenario,)
    outcomes = []
    for name in names:
        where = directory / name
        shutil.rmtree(where, ignore_errors=True)
        click.echo(click.style(f"\n=== {name} ===", bold=True))
        outcomes.append(run_scenario(where, name, click.echo, settings, timeout_s, crash_after))
    sys.exit(0 if _summary(outcomes) else 1)


def _dashboard(listen: str) -> str | None:
    """Where the dashboard is served (None: not), said on the terminal; a port in use is
    reported and the demo runs without it."""
    import socket

    from autorecover.server.auth import is_loopback
    from autorecover.server.serving import parse_listen

    if listen == "off":
        return None
    try:
        host, port = parse_listen(listen)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--dashboard") from None
    if not is_loopback(host):
        raise click.BadParameter(f"{host!r} is not a loopback address: the demo's dashboard "
                                 "has no sign-in", param_hint="--dashboard")  # fmt: skip
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            click.echo(f"dashboard not served: {listen}: {exc.strerror} (--dashboard HOST:PORT)")
            return None
    click.echo(click.style(f"dashboard: http://{listen}/ui/fleet", bold=True)
               + " (live while the demo runs; loopback only, no sign-in)")  # fmt: skip
    return listen


def _summary(outcomes: list[Outcome]) -> bool:
    from autorecover.demo.view import format_breakdown

    click.echo(click.style("\n=== summary ===", bold=True))
    for o in outcomes:
        mark = click.style("ok  ", fg="green") if o.ok else click.style("FAIL", fg="red")
        click.echo(f"{mark} {o.scenario:<13} on {o.node or '-':<7} {o.seconds:5.1f}s  "
                   + ("; ".join(o.problems) if o.problems else "as expected"))  # fmt: skip
        if o.breakdown is not None:
            click.echo(f"     {format_breakdown(o.breakdown)}")
    return all(o.ok for o in outcomes)


def _live(directory: Path, settings: DemoSettings) -> None:
    from autorecover.demo.faults import KINDS
    from autorecover.demo.stack import JOB, Demo
    from autorecover.demo.view import Watcher, format_breakdown

    demo_ = Demo(directory, settings)
    watch = Watcher(demo_)
    try:
        demo_.submit()
        watch.say(f"cluster in {demo_.dir}: {', '.join(n.name for n in demo_.nodes)}")
        watch.say(f"inject: autorecover demo inject KIND --node N --dir {demo_.dir}")
        watch.say(f"kinds: {', '.join(KINDS)}; Ctrl-C ends")
        while True:
            demo_.tick()
            watch.poll()
            time.sleep(settings.tick_s)
    except KeyboardInterrupt:
        watch.say("stopping")
    finally:
        demo_.close()
        for incident, b in watch.breakdowns.items():
            click.echo(f"{incident}: {format_breakdown(b)}")
        click.echo(f"job {JOB}: done")


def _resume(directory: Path, settings: DemoSettings, seconds: float) -> None:
    from autorecover.demo.stack import Demo
    from autorecover.demo.view import Watcher

    demo_ = Demo(directory, settings)
    watch = Watcher(demo_)
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            demo_.tick()
            watch.poll()
            time.sleep(settings.tick_s)
    finally:
        demo_.close()


@demo.command("inject")
@click.argument("kind", type=DeferredChoice("autorecover.demo.faults:KINDS"))
@click.option("--node", required=True, help="the simulated node, e.g. node-1")
@click.option(
    "--dir", "directory", type=click.Path(path_type=Path), default=DEFAULT_DIR, show_default=True
)
def inject_command(kind: str, node: str, directory: Path) -> None:
    """Inject a fault on a node of a running demo."""
    from autorecover.demo.faults import inject

    try:
        click.echo(inject(directory.resolve(), kind, node))
    except ValueError as exc:
        raise click.UsageError(str(exc)) from exc
