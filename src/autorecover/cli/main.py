"""The `autorecover` command: the root group, and every subcommand registered on it.

Each subcommand lives in its own module of this package and imports what it needs (the
server, the demo, a cluster client) when it runs, so that `autorecover --help` and
`autorecover explain` start in a fraction of a second.
"""

from __future__ import annotations

import click

from autorecover import __version__
from autorecover.cli.agent import agent_group
from autorecover.cli.demo import demo
from autorecover.cli.engine import serve_cmd
from autorecover.cli.explain import catalog_group, explain_cmd
from autorecover.cli.hardware import hardware_group
from autorecover.cli.operating import CONTROLS
from autorecover.cli.simulate import simulate_cmd
from autorecover.cli.token import token_group
from autorecover.cli.views import VIEWS


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="autorecover")
def main() -> None:
    """autorecover: autonomous recovery for GPU training clusters.

    \b
    Start here:
      autorecover demo --scenario all   the whole loop on a small local cluster, unattended
      autorecover explain BUNDLE        why did this job fail, and what to do
      autorecover explain DIR --json    every bundle in DIR, as JSON verdicts
      autorecover catalog xids          what each NVIDIA XID means to autorecover
      autorecover agent check --once    is this GPU node healthy (Slurm HealthCheckProgram)
      autorecover serve                 run the engine: hardware and job recovery, HTTP API
      autorecover nodes | incidents     what the engine sees and did, and why
      autorecover node release NODE --why TEXT   hand a node back (every control is audited)
      autorecover simulate              how much training time each recovery policy saves
    """


for _command in (explain_cmd, catalog_group, agent_group, hardware_group, demo, serve_cmd, *VIEWS):
    main.add_command(_command)
main.add_command(token_group)
main.add_command(simulate_cmd)
for _command in CONTROLS:
    main.add_command(_command)
