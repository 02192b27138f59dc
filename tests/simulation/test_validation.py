"""Validation against the published figures (docs/simulation.md, "How near"): Llama 3's fleet
and rates, a person responding to every failure, one seeded run."""

from __future__ import annotations

from autorecover.simulation.running import Options, prepare, simulate
from autorecover.simulation.settings import load_study, load_world

PUBLISHED = 419  # unexpected interruptions, 16,384 H100s, 54 days (Llama 3, Table 5)
TOLERANCE = 0.15  # the stated tolerance: Poisson noise alone is +/- 5 % (one sd)


def test_manual_response_lands_near_the_published_interruptions_and_ettr() -> None:
    run = prepare(Options(gpus=16_384, days=54, seed=1, policies=("manual",)), load_study(),
                  load_world())  # fmt: skip
    out = simulate(run, "manual")
    count = sum(out.interruptions.values())
    assert abs(count - PUBLISHED) <= TOLERANCE * PUBLISHED, count
    ettr = out.ledger.productive / (out.gpus * out.horizon_s)
    # The paper: "higher than 90 %" with Meta's automation; a person answering every page
    # lands a few points under it (docs/simulation.md says how near and why).
    assert 0.83 <= ettr < 0.92, ettr
