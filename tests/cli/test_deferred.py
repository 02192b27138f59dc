"""Options whose choices and defaults are read on first use: the values are the modules' own,
and `--help` prints them as if they had been written in place."""

from __future__ import annotations

import click
from click.testing import CliRunner

from autorecover.adapters.kubernetes.diagnostics import DCGM_IMAGE
from autorecover.adapters.store.url import DEFAULT_STORE_URL
from autorecover.agent.wiring import DEFAULT_INTERVALS_S, KERNEL_SOURCES
from autorecover.cli.agent import run_cmd
from autorecover.cli.deferred import Deferred, DeferredChoice
from autorecover.cli.engine import serve_cmd
from autorecover.cli.main import main
from autorecover.server.leadership import LEASE_NAME
from autorecover.server.wiring import CLUSTERS, SCHEDULER_CHOICES


def _param(command: click.Command, name: str) -> click.Parameter:
    return next(p for p in command.params if p.name == name)


def test_deferred_default_reads_the_value_and_prints_it() -> None:
    default = Deferred("autorecover.server.leadership:LEASE_NAME")
    assert default() == LEASE_NAME
    assert str(default) == LEASE_NAME
    pairs = Deferred("autorecover.server.wiring:CLUSTERS", lambda names: names[:2])
    assert pairs() == CLUSTERS[:2]
    assert str(pairs) == ", ".join(CLUSTERS[:2])


def test_deferred_choice_is_the_modules_list_plus_extras() -> None:
    choice = DeferredChoice("autorecover.server.wiring:CLUSTERS", extra=("all",))
    assert choice.choices == (*CLUSTERS, "all")
    assert choice.convert("fake", None, None) == "fake"


def test_serve_takes_its_defaults_and_choices_from_the_engine() -> None:
    ctx = click.Context(serve_cmd)
    assert _param(serve_cmd, "store_url").get_default(ctx) == DEFAULT_STORE_URL
    assert _param(serve_cmd, "lease_name").get_default(ctx) == LEASE_NAME
    assert _param(serve_cmd, "dcgm_image").get_default(ctx) == DCGM_IMAGE
    scheduler = _param(serve_cmd, "scheduler").type
    assert isinstance(scheduler, click.Choice) and scheduler.choices == SCHEDULER_CHOICES
    assert ("auto", *CLUSTERS) == SCHEDULER_CHOICES
    source = _param(run_cmd, "kernel_source").type
    assert isinstance(source, click.Choice) and source.choices == KERNEL_SOURCES


def test_help_prints_the_deferred_values() -> None:
    def shown(command: click.Command, name: str) -> str:
        record = _param(command, name).get_help_record(click.Context(command))
        assert record is not None
        return " ".join(record)

    assert f"[default: {DEFAULT_STORE_URL}]" in shown(serve_cmd, "store_url")
    assert f"[default: {LEASE_NAME}]" in shown(serve_cmd, "lease_name")
    assert f"[default: {DCGM_IMAGE}]" in shown(serve_cmd, "dcgm_image")
    assert "[" + "|".join(SCHEDULER_CHOICES) + "]" in shown(serve_cmd, "scheduler")
    every = ", ".join(f"{p}={s:g}" for p, s in DEFAULT_INTERVALS_S.items())  # kernel=5, ...
    assert f"[default: {every}]" in shown(run_cmd, "intervals")
    result = CliRunner().invoke(main, ["serve", "--help"])
    assert result.exit_code == 0 and "(dynamic)" not in result.output


def test_unknown_choice_is_a_usage_error_naming_the_choices() -> None:
    result = CliRunner().invoke(main, ["serve", "--scheduler", "slurmish"])
    assert result.exit_code == 2
    assert all(name in result.output for name in CLUSTERS)
