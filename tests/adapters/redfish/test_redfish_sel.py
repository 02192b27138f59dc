"""Reading the BMC's event log (SEL) through LogServices, as evidence lines."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from autorecover.adapters.redfish.inventory import parse_inventory
from autorecover.adapters.redfish.power import RedfishPower
from autorecover.testing.redfish import RedfishRig, sel_entry

FIXTURES = Path(__file__).parents[2] / "fixtures" / "redfish"


def test_redfish_sel_entries_newer_than_a_time_are_evidence_lines(bmc: RedfishRig) -> None:
    published = json.loads((FIXTURES / "dmtf-rackmount1-log1-entries.json").read_text())
    bmc.add_sel("gpu04", published["Members"])
    power = RedfishPower(parse_inventory(bmc.inventory(), "test"))
    lines = power.events("gpu04", datetime(2012, 3, 7, 14, 44, 30, tzinfo=UTC))
    assert lines == [
        "2012-03-07T14:45:00+0000 BMC SEL Critical: Temperature threshold exceeded "
        "(Temperature Upper Critical - going high)"
    ]
    assert len(power.events("gpu04", datetime(2012, 1, 1, tzinfo=UTC))) == 2
    now = datetime.now(UTC).replace(microsecond=0)
    bmc.add_sel("gpu04", [sel_entry("CPU 1 IERR", now, sensor="Processor")])
    recent = power.events("gpu04", now - timedelta(minutes=5))
    assert recent == [
        f"{now:%Y-%m-%dT%H:%M:%S+0000} BMC SEL Critical: CPU 1 IERR (Processor Assert)"
    ]


def test_redfish_a_bmc_without_an_event_log_gives_no_lines(bmc: RedfishRig) -> None:
    power = RedfishPower(parse_inventory(bmc.inventory(), "test"))
    assert power.events("gpu01", datetime(2000, 1, 1, tzinfo=UTC)) == []
