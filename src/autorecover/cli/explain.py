"""`autorecover explain` and `autorecover catalog`: verdicts on incident bundles, and the
knowledge catalog (XIDs and log signatures) they are read with."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from autorecover.adapters.bundles import Explanation
    from autorecover.domain.catalog import Catalog
    from autorecover.domain.records import Evidence, Verdict

CATALOG_HELP = (
    "A TOML catalog override, merged by key onto the built-in XIDs and signatures "
    "(repeatable; later files win). Also read from AUTORECOVER_CATALOG (colon-separated)."
)

MAX_CATALOG_BYTES = 16 << 20  # the built-in catalog is ~60 KB

catalog_option = click.option(
    "--catalog",
    "catalogs",
    multiple=True,
    type=click.Path(path_type=Path, dir_okay=False),
    envvar="AUTORECOVER_CATALOG",
    help=CATALOG_HELP,
)


def load_catalog(paths: tuple[Path, ...]) -> Catalog:
    """The built-in catalog with the operator's overrides merged in, in order."""
    from autorecover.adapters.files import UnreadableError, read_text
    from autorecover.domain.catalog import CatalogError, builtin_catalog, parse_document

    catalog = builtin_catalog()
    for path in paths:
        try:
            text = read_text(path, MAX_CATALOG_BYTES)
        except UnreadableError as exc:
            raise CatalogError(str(exc)) from None
        try:
            document = parse_document(text, str(path))
        except RecursionError:  # tomllib on `a = [[[[...`: a one-line answer, not a traceback
            raise CatalogError(f"{path}: not valid TOML: nested too deeply") from None
        catalog = catalog.merged(document, str(path))
    return catalog


@click.command("explain")
@click.argument("bundle", type=click.Path(path_type=Path, exists=True))
@click.option("--json", "as_json", is_flag=True, help="Print the verdict as a JSON object.")
@catalog_option
@click.option(
    "--all-evidence", is_flag=True, help="Also list every matched line, not only the decisive ones."
)
def explain_cmd(
    bundle: Path, as_json: bool, catalogs: tuple[Path, ...], all_evidence: bool
) -> None:
    """Explain why the job in an incident BUNDLE failed or hung.

    BUNDLE is a directory holding job.json, logs/<node>.log and system/<node>.log (see
    docs/incident-bundles.md), or a directory of such bundles: then each is explained and a
    summary table follows. Exit status: 0 when every bundle was read, 2 when one was not.
    """
    from autorecover.adapters.bundles import BundleError, explain, find_bundles
    from autorecover.domain.catalog import CatalogError
    from autorecover.parsing.scanning import Scanner

    try:
        catalog = load_catalog(catalogs)
        bundles = find_bundles(bundle)
    except (CatalogError, BundleError) as exc:
        raise click.ClickException(str(exc)) from None
    scanner = Scanner(catalog)
    results: list[Explanation] = []
    failures: list[tuple[Path, str]] = []
    for path in bundles:
        try:
            results.append(explain(path, catalog, scanner))
        except BundleError as exc:
            failures.append((path, str(exc)))
            click.echo(f"error: {exc}", err=True)
    single = len(bundles) == 1 and (bundle / "job.json").exists()
    if as_json:
        if single and results:
            click.echo(json.dumps(results[0].verdict.as_dict(), indent=2))
        else:
            payload = [{"bundle": r.bundle.name, **r.verdict.as_dict()} for r in results]
            click.echo(json.dumps(payload, indent=2))
    else:
        for r in results:
            click.echo(render(r, all_evidence=all_evidence))
        if not single:
            click.echo(render_table(results, failures))
    if failures:
        sys.exit(2)


def render(r: Explanation, *, all_evidence: bool = False) -> str:
    """A verdict for people: what happened, which nodes, what to do, the proof."""
    v = r.verdict
    job = r.job
    lines = [
        click.style(f"{r.bundle.name}", bold=True)
        + f"  ({job.scheduler} job {job.job}, {job.state})",
        f"  cause:    {click.style(str(v.cause), fg=_colour(str(v.cause)), bold=True)}",
        f"  suspects: {', '.join(v.suspect_nodes) or '-'}",
        f"  action:   {v.action}",
        f"  recovery: {first_decision(v)}",
        f"  why:      {v.summary}",
        "  evidence:",
    ]
    shown = (
        v.evidence
        if not all_evidence
        else v.evidence + tuple(e for e in _all(r) if e not in v.evidence)
    )
    for e in shown:
        where = f"{e.source}/{e.node}.log:{e.line}" if e.source != "job" else f"job.json:{e.line}"
        if e.line == 0 and e.source != "job":  # derived from several lines: its text cites them
            where = f"{e.node} (from several lines)"
        lines.append(f"    {where}  [{e.signal}]")
        lines.append(f"      {_clip(e.text)}")
    if not shown:
        lines.append("    (no matching line)")
    for node, signal, count in r.repeats:
        lines.append(f"  storm:    {signal} on {node}: {count} more identical lines not listed")
    zones: dict[str, list[str]] = {}
    for zone in r.local_times:
        zones.setdefault(zone.describe(), []).append(f"{zone.source.value}/{zone.node}.log")
    for described, files in zones.items():
        lines.append(
            f"  times:    read as {described} (stamps without a zone that fit the job's run only "
            f"there): {', '.join(files)}"
        )
    return "\n".join(lines) + "\n"


def first_decision(verdict: Verdict) -> str:
    """What job recovery does with the verdict on a job's first failure under the built-in
    policy (`decide_job`): a weak application verdict earns a confirmation retry first."""
    from autorecover.domain.jobs import decisions
    from autorecover.domain.jobs.policy import builtin_job_policy

    made = decisions.first_decision(verdict, builtin_job_policy())
    return f"{made.reason} (job recovery on a first failure, built-in policy)"


def _all(r: Explanation) -> tuple[Evidence, ...]:
    from autorecover.domain.records import Evidence

    return tuple(Evidence(f.node, f.source, f.line, f.signal, f.text) for f in r.findings)


def render_table(results: list[Explanation], failures: list[tuple[Path, str]]) -> str:
    """One row per bundle: name, cause, suspects, action."""
    rows = [("bundle", "cause", "suspects", "action")]
    rows += [
        (
            r.bundle.name,
            str(r.verdict.cause),
            ",".join(r.verdict.suspect_nodes) or "-",
            str(r.verdict.action),
        )
        for r in results
    ]
    rows += [(p.name, "error", "-", "-") for p, _ in failures]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    out = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    out.append(f"{len(results)} explained, {len(failures)} unreadable")
    return "\n".join(out)


def _colour(cause: str) -> str:
    return {"hardware": "red", "application": "yellow", "transient": "cyan"}.get(cause, "white")


def _clip(text: str, width: int = 160) -> str:
    text = text.strip()
    return text if len(text) <= width else text[: width - 1] + "…"


@click.group("catalog")
def catalog_group() -> None:
    """Inspect the knowledge catalog (XIDs and log signatures) and check overrides."""


@catalog_group.command("xids")
@catalog_option
def catalog_xids(catalogs: tuple[Path, ...]) -> None:
    """List every XID: the catalog's actions and autorecover's reading of it."""
    catalog = _load_or_fail(catalogs)
    click.echo(f"catalog {catalog.version}")
    for number, e in sorted(catalog.xids.items()):
        flag = "" if e.enabled else "  (disabled)"
        rules = f"  rules={','.join(sorted(e.rules))}" if e.rules else ""
        click.echo(
            f"{number:>4}  {e.mnemonic:<34} {e.blame:<11} {e.node_action:<15} "
            f"w={e.weight:<3} imm={e.immediate or '-'}{rules}{flag}"
        )


@catalog_group.command("signatures")
@catalog_option
def catalog_signatures(catalogs: tuple[Path, ...]) -> None:
    """List every log signature with its meaning."""
    catalog = _load_or_fail(catalogs)
    click.echo(f"catalog {catalog.version}")
    for key, s in sorted(catalog.signatures.items()):
        flag = "" if s.enabled else "  (disabled)"
        click.echo(
            f"{key:<32} {s.blame:<11} {s.node_action:<15} w={s.weight:<3} {s.description}{flag}"
        )


@catalog_group.command("check")
@click.argument("override", type=click.Path(path_type=Path, dir_okay=False, exists=True))
def catalog_check(override: Path) -> None:
    """Check an override file: parse it, merge it, compile every pattern."""
    from autorecover.parsing.scanning import Scanner

    catalog = _load_or_fail((override,))
    Scanner(catalog)
    click.echo(
        f"{override}: ok (catalog {catalog.version}, {len(catalog.xids)} XIDs, "
        f"{len(catalog.signatures)} signatures)"
    )


def _load_or_fail(paths: tuple[Path, ...]) -> Catalog:
    from autorecover.domain.catalog import CatalogError

    try:
        return load_catalog(paths)
    except CatalogError as exc:
        raise click.ClickException(str(exc)) from None
