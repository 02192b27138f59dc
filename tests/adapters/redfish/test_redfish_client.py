"""The Redfish client against sushy-tools' emulator (a real Redfish service, fake systems)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from autorecover.adapters.redfish.client import NotFoundError, RedfishClient
from autorecover.adapters.redfish.inventory import parse_inventory
from autorecover.adapters.redfish.power import ALLOWED, RESET, RedfishPower, reset_plan
from autorecover.controllers.ports import PermanentError, Provenance, TransientError
from autorecover.testing.kubernetes.pki import TestPki
from autorecover.testing.redfish import RedfishRig, free_port, start


def client(bmc: RedfishRig, password: str | None = None) -> RedfishClient:
    return RedfishClient(bmc.url, bmc.user, password or bmc.password, timeout_s=5)


def prov(aid: str) -> Provenance:
    return Provenance(aid, "autorecover", "remediate: power_cycle", datetime.now(UTC))


def test_redfish_system_offers_a_reset_and_its_allowable_values(bmc: RedfishRig) -> None:
    system = client(bmc).get(f"/redfish/v1/Systems/{bmc.system('gpu01')}")
    assert system["PowerState"] == "On"
    allowed = system["Actions"][RESET][ALLOWED]
    assert "ForceRestart" in allowed and "PowerCycle" not in allowed  # the emulator's list
    assert reset_plan(allowed, "On") == ("ForceRestart",)


def test_redfish_reset_is_accepted_and_the_power_state_changes(bmc: RedfishRig) -> None:
    power = RedfishPower(parse_inventory(bmc.inventory(), "test"))
    done = power.power_cycle("gpu02", prov("gpu02/3/power_cycle"))
    assert done.startswith("ForceRestart accepted by " + bmc.url)
    assert ("gpu02", "ForceRestart") in bmc.resets()
    assert bmc.power_state("gpu02") == "Off"  # the fake driver: off, then on 3 to 4 s later
    assert power.power_state("gpu02") == "Off"
    deadline = time.monotonic() + 20
    while bmc.power_state("gpu02") != "On":
        assert time.monotonic() < deadline, "the fake system never came back on"
        time.sleep(0.5)
    # The same action id again (a retry after a crash): nothing more reaches the BMC.
    assert power.power_cycle("gpu02", prov("gpu02/3/power_cycle")) == done
    assert bmc.resets().count(("gpu02", "ForceRestart")) == 1


def test_redfish_bad_credentials_are_a_permanent_error(bmc: RedfishRig) -> None:
    with pytest.raises(PermanentError, match="401") as caught:
        client(bmc, password="wrong-password").get(f"/redfish/v1/Systems/{bmc.system('gpu01')}")
    assert "wrong-password" not in str(caught.value)
    assert not isinstance(caught.value, TransientError)


def test_redfish_unreachable_bmc_is_a_transient_error() -> None:
    lost = RedfishClient(f"http://127.0.0.1:{free_port()}", "u", "p", timeout_s=2)
    with pytest.raises(TransientError, match="unreachable"):
        lost.get("/redfish/v1/Systems/1")


def test_redfish_missing_system_is_not_found(bmc: RedfishRig) -> None:
    with pytest.raises(NotFoundError, match="404"):
        client(bmc).get("/redfish/v1/Systems/no-such-system")


def test_redfish_redirect_within_the_bmc_is_followed(bmc: RedfishRig) -> None:
    # The emulator answers a system's name with a 307 to its id: same BMC, so followed.
    system = client(bmc).get("/redfish/v1/Systems/gpu03")
    assert system["Id"] == bmc.system("gpu03")


def test_redfish_links_off_the_bmc_are_refused(bmc: RedfishRig) -> None:
    with pytest.raises(PermanentError, match="off the BMC"):
        client(bmc).get("http://127.0.0.1:1/redfish/v1/")


def test_redfish_reset_plan_prefers_power_cycle_then_restart_then_off_and_on() -> None:
    assert reset_plan(["On", "ForceOff", "PowerCycle", "ForceRestart"], "On") == ("PowerCycle",)
    assert reset_plan(["On", "ForceOff", "ForceRestart"], "On") == ("ForceRestart",)
    assert reset_plan(["ForceOn", "ForceOff"], "On") == ("ForceOff", "ForceOn")
    assert reset_plan(None, "On") == ("ForceRestart",)  # not listed: the common one
    assert reset_plan(["On", "ForceRestart"], "Off") == ("On",)  # found off: switched on
    with pytest.raises(PermanentError, match="allows none"):
        reset_plan(["GracefulShutdown", "Nmi"], "On")
    with pytest.raises(PermanentError, match="no On"):
        reset_plan(["ForceRestart"], "Off")


@pytest.fixture(scope="module")
def pkis(tmp_path_factory: pytest.TempPathFactory) -> tuple[TestPki, TestPki]:
    ours, stranger = (TestPki(tmp_path_factory.mktemp(n)) for n in ("pki", "stranger"))
    ours.create()
    stranger.create()
    return ours, stranger


@pytest.fixture(scope="module")
def https_bmc(pkis: tuple[TestPki, TestPki]) -> Iterator[RedfishRig]:
    ours = pkis[0]
    rig = start(["gpu01"], tls=(ours.path("apiserver.crt"), ours.path("apiserver.key")))
    try:
        yield rig
    finally:
        rig.stop()


def test_redfish_tls_is_verified_against_the_inventorys_ca(
    https_bmc: RedfishRig, pkis: tuple[TestPki, TestPki]
) -> None:
    ours, stranger = pkis
    path = f"/redfish/v1/Systems/{https_bmc.system('gpu01')}"
    user, password = https_bmc.user, https_bmc.password
    trusted = RedfishClient(https_bmc.url, user, password, ca_file=ours.path("ca.crt"))
    assert trusted.get(path)["PowerState"] == "On"
    for ca in (None, stranger.path("ca.crt")):  # the system's trust store; another CA
        with pytest.raises(PermanentError, match="certificate not trusted"):
            RedfishClient(https_bmc.url, user, password, ca_file=ca).get(path)
    unverified = RedfishClient(https_bmc.url, user, password, verify=False)
    assert unverified.get(path)["PowerState"] == "On"  # the operator's explicit verify = false
