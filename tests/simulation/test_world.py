"""The world: the published study as data, its checks, the fleet's truth, the seeded trace."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from autorecover.simulation.faults import draw_trace, pareto_weights
from autorecover.simulation.fleet import Broken, Fleet
from autorecover.simulation.settings import SettingsError, load_study, load_world


def test_the_llama3_table_is_the_published_one() -> None:
    study = load_study()
    assert (study.gpus, study.days, study.interruptions) == (16_384, 54, 419)
    assert sum(c.count for c in study.categories) == 419
    gpu = [c for c in study.categories if c.group == "GPU"]
    assert {c.component for c in gpu} == {
        "Faulty GPU", "GPU HBM3 Memory", "GPU SRAM Memory", "GPU System Processor",
        "Silent Data Corruption", "GPU Thermal Interface + Sensor",
    }  # fmt: skip
    assert sum(c.count for c in gpu) == 268  # the text's 58.7 % is its printed percentages


def test_each_agent_line_reads_as_the_signal_the_catalog_gives_it(scanner: object) -> None:
    """The study's kernel lines are what the node agent would report (golden: real parsing)."""
    import io
    from datetime import UTC, datetime

    from autorecover.domain.records import Source

    for c in load_study().categories:
        for line in filter(None, (c.agent_line, c.warning_line)):
            found = scanner.scan(  # type: ignore[attr-defined]
                io.BytesIO(line.encode() + b"\n"), node="n", source=Source.SYSTEM,
                reference=datetime(2026, 1, 1, tzinfo=UTC),
            ).findings  # fmt: skip
            assert found, f"{c.key}: {line!r} is not recognised"


def test_a_bad_study_file_names_the_file_and_the_field(tmp_path: Path) -> None:
    bad = tmp_path / "study.toml"
    bad.write_text(
        'name = "x"\nsource = "y"\ngpus = 8\ndays = 1\ninterruptions = 1\n'
        '[category.a]\ncomponent = "A"\ngroup = "G"\ncount = 1\nscope = "node"\n'
        "cure = { reset = 0.5 }\nhang = 0.0\nobserved = 0.0\nwarned = 0.0\n"
    )
    with pytest.raises(SettingsError, match=r"study.toml: \[category.a\]: field 'cure'"):
        load_study(bad)
    bad.write_text("gpus = [")
    with pytest.raises(SettingsError, match=r"study\.toml: not valid TOML"):
        load_study(bad)


def test_a_partial_world_file_overrides_by_key(tmp_path: Path) -> None:
    site = tmp_path / "world.toml"
    site.write_text("[job]\ncheckpoint_interval_s = 60\n")
    world = load_world(site)
    assert world.job["checkpoint_interval_s"] == 60.0
    assert world.job["init_s"] == load_world().job["init_s"]  # the rest is the built-in's
    site.write_text("[job]\ncheckpoint_every = 60\n")
    with pytest.raises(SettingsError, match=r"\[job\] field 'checkpoint_every': unknown"):
        load_world(site)


def test_lemon_weights_have_mean_one_and_a_heavy_tail() -> None:
    weights = pareto_weights(10_000, 1.6, random.Random(3))
    assert sum(weights) / len(weights) == pytest.approx(1.0)
    assert max(weights) > 20 * sorted(weights)[len(weights) // 2]


def test_a_remedy_cures_only_what_it_can_and_an_rma_ends_a_lemon() -> None:
    fleet = Fleet(16, 4, 1, 8, [1.0] * 15 + [30.0])
    fleet.broken[15] = Broken("gpu_hbm3", "reboot", 0.0)
    assert not fleet.cure(15, "reset") and not fleet.healthy(15, 0.0)
    assert fleet.cure(15, "reboot") and fleet.healthy(15, 0.0)
    assert fleet.weights[15] == 30.0  # a reboot does not change the part
    fleet.broken[15] = Broken("faulty_gpu", "rma", 0.0, host_down=True)
    assert not fleet.up(15, 0.0)
    assert fleet.cure(15, "rma") and fleet.weights[15] == 1.0
    fleet.leaf_down[1] = 100.0
    assert not fleet.up(8, 50.0) and fleet.up(8, 100.0) and fleet.up(7, 50.0)


def test_the_trace_is_seeded_and_lands_on_the_published_rate() -> None:
    study, world = load_study(), load_world()
    weights = pareto_weights(2048, 1.6, random.Random(1))
    horizon = study.days * 86_400
    one = draw_trace(study, world, weights, [16_384], horizon, random.Random(7))
    two = draw_trace(study, world, weights, [16_384], horizon, random.Random(7))
    assert one == two
    # 2,048 nodes of 8 GPUs for 54 days: the study's 419, within Poisson noise (sd ~ 20).
    assert 419 * 0.85 < len(one.faults) < 419 * 1.15
    assert all(a.at <= b.at for a, b in zip(one.faults, one.faults[1:], strict=False))
    true = [w for w in one.warnings if w.true]
    assert true and all(w.at > 0 for w in true)
