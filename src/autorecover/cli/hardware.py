"""`autorecover hardware`: look at hardware recovery's policy, lifecycle and node states."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from autorecover.domain.hardware.policy import Rule


@click.group("hardware")
def hardware_group() -> None:
    """Hardware recovery: node lifecycle, policy, and what the store says about each node."""


@hardware_group.command("policy")
@click.option(
    "--policy",
    "files",
    multiple=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help="A TOML policy override, merged by key onto the built-in policy (repeatable).",
)
def policy_cmd(files: tuple[Path, ...]) -> None:
    """Print the merged hardware policy: what each signal and node action leads to."""
    from autorecover.domain.hardware.policy_loading import PolicyError, load_policy

    try:
        policy = load_policy([(str(p), p.read_text(encoding="utf-8")) for p in files])
    except (PolicyError, OSError) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"policy {policy.version or '-'}")
    for title, rules in (
        ("by node action", policy.actions),
        ("by signal", policy.signals),
        ("by probe", policy.probes),
    ):
        click.echo(f"{title}:")
        for key, rule in sorted(rules.items()):
            click.echo(f"  {key:<28} {_rule(rule)}")
    click.echo(f"breaker: {policy.breaker}")
    click.echo(f"ladder:  {policy.ladder}")


@hardware_group.command("lifecycle")
def lifecycle_cmd() -> None:
    """Print the node lifecycle as a mermaid diagram, generated from the transition table."""
    from autorecover.domain.hardware.lifecycle import mermaid

    click.echo(mermaid(), nl=False)


@hardware_group.command("status")
@click.option(
    "--db",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    required=True,
    help="The hardware recovery store (SQLite file).",
)
def status_cmd(db: Path) -> None:
    """Every node the store tracks: state, since when, why, and the breaker."""
    from autorecover.adapters.clock import SystemClock
    from autorecover.adapters.store.sqlite import SqliteStore

    store = SqliteStore(db)
    try:
        snap = store.load(removals_since=SystemClock().now())
    finally:
        store.close()
    click.echo(f"{'node':<20} {'state':<16} {'since':<26} reason")
    for name, rec in sorted(snap.nodes.items()):
        click.echo(f"{name:<20} {rec.state:<16} {rec.since.isoformat():<26} {rec.reason}")
    click.echo(f"breaker: {snap.breaker}")
    click.echo(f"{len(snap.pending)} action(s) intended, not yet done")


def _rule(rule: Rule) -> str:
    """One policy rule in words."""
    text = str(rule.cls) if rule.enabled else "disabled"
    if rule.cap is not None:
        text += f", at most {rule.cap}"
    if rule.escalate_after:
        hours = rule.escalate_window.total_seconds() / 3600
        text += f"; {rule.escalate_after} within {hours:g} h -> {rule.escalate_to}"
    return text
