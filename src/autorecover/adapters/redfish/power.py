"""Power-cycling nodes through their BMCs, and reading the BMCs' event logs (`PowerPort`).

`power_cycle` reads the node's `ComputerSystem`, picks the reset its BMC allows
(`ResetType@Redfish.AllowableValues`, or the action's `@Redfish.ActionInfo`): `PowerCycle`
when offered, else `ForceRestart`, else `ForceOff` then `On` over two passes (the action stays
intended, `TransientError`, until the BMC shows the power off). A system found off is
switched `On`. Each action id is carried out once, however often it is asked (a retry after a
crash between the reset and its recorded outcome, within this process).

`events` reads the SEL and other event logs from the system's and its managers' `LogServices`
(`.../LogServices/<id>/Entries`, pages followed within bounds) and returns the entries newer
than a time as evidence lines, oldest first.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from autorecover.adapters.redfish.client import NotFoundError, RedfishClient
from autorecover.adapters.redfish.inventory import Bmc, Inventory, InventoryError
from autorecover.controllers.ports import PermanentError, Provenance, TransientError

log = logging.getLogger(__name__)

RESET = "#ComputerSystem.Reset"
ALLOWED = "ResetType@Redfish.AllowableValues"
_REMEMBERED = 10_000  # action ids kept for idempotency
MAX_SERVICES = 6  # log services read per BMC
MAX_PAGES = 5  # pages of one log's entries
MAX_FETCHED = 100  # entries fetched one by one when a collection lists links only
MAX_LINES = 50


def reset_plan(allowed: Sequence[str] | None, power_state: str | None) -> tuple[str, ...]:
    """The resets to ask for, in order, given what the BMC allows and the power state."""
    values = set(allowed) if allowed else {"ForceRestart"}  # unlisted: the common one
    on = next((t for t in ("On", "ForceOn") if t in values), None)
    if power_state == "Off":
        if on is None:
            raise PermanentError(f"the system is off and its BMC allows no On: {sorted(values)}")
        return (on,)
    for kind in ("PowerCycle", "ForceRestart"):
        if kind in values:
            return (kind,)
    if "ForceOff" in values and on is not None:
        return ("ForceOff", on)
    raise PermanentError(
        f"the BMC allows none of PowerCycle, ForceRestart, ForceOff+On: {sorted(values)}"
    )


class RedfishPower:
    """The `PowerPort` over Redfish, for the nodes in an inventory."""

    def __init__(self, inventory: Inventory, *, timeout_s: float = 10.0) -> None:
        self.inventory = inventory
        self.timeout_s = timeout_s
        self._done: OrderedDict[str, str] = OrderedDict()
        self._off: dict[str, str] = {}  # action id -> the On still to send after ForceOff

    def power_cycle(self, node: str, provenance: Provenance) -> str:
        """Power-cycle the node once per action id; what the BMC was asked."""
        aid = provenance.action_id
        if aid in self._done:
            return self._done[aid]
        bmc, client = self._open(node)
        path = f"/redfish/v1/Systems/{bmc.system}"
        system = client.get(path)
        state = str(system.get("PowerState") or "unknown")
        reset = (system.get("Actions") or {}).get(RESET) or {}
        target = str(reset.get("target") or f"{path}/Actions/ComputerSystem.Reset")
        if aid in self._off:  # the second half of ForceOff + On
            if state != "Off":
                raise TransientError(f"{node}: ForceOff asked, the BMC still shows {state}")
            plan: tuple[str, ...] = (self._off.pop(aid),)
        else:
            plan = reset_plan(self._allowed(client, reset), state)
        for kind in plan[:1]:
            client.post(target, {"ResetType": kind})
            log.info("%s: %s asked of %s (%s; %s)", node, kind, bmc.url, aid, provenance.why)
        if len(plan) > 1:
            self._off[aid] = plan[1]
            raise TransientError(f"{node}: ForceOff accepted; {plan[1]} once the power is off")
        done = f"{plan[0]} accepted by {bmc.url} system {bmc.system} (power was {state})"
        self._done[aid] = done
        while len(self._done) > _REMEMBERED:
            self._done.popitem(last=False)
        return done

    def power_state(self, node: str) -> str:
        """The system's `PowerState` as its BMC reports it."""
        bmc, client = self._open(node)
        return str(client.get(f"/redfish/v1/Systems/{bmc.system}").get("PowerState") or "")

    def events(self, node: str, since: datetime) -> list[str]:
        """Event-log (SEL) entries newer than `since`, oldest first, as evidence lines."""
        bmc, client = self._open(node)
        path = f"/redfish/v1/Systems/{bmc.system}"
        system = client.get(path)
        collections = [_link(system.get("LogServices")) or f"{path}/LogServices"]
        for manager in (system.get("Links") or {}).get("ManagedBy") or []:
            try:
                found = _link(client.get(_link(manager) or "").get("LogServices"))
            except NotFoundError:
                continue
            if found:
                collections.append(found)
        entries: list[tuple[datetime, str]] = []
        for service in self._services(client, collections):
            entries.extend(self._entries(client, service, since))
        entries.sort(key=lambda e: e[0])
        return [line for _, line in entries[-MAX_LINES:]]

    # --- internals -------------------------------------------------------------------------

    def _open(self, node: str) -> tuple[Bmc, RedfishClient]:
        bmc = self.inventory.of(node)
        if bmc is None:
            raise PermanentError(f"no BMC for {node} in the inventory")
        try:
            user, password = bmc.login()
        except InventoryError as exc:
            raise PermanentError(str(exc)) from None
        ca = Path(bmc.ca_file) if bmc.ca_file else None
        client = RedfishClient(
            bmc.url, user, password, verify=bmc.verify, ca_file=ca, timeout_s=self.timeout_s
        )
        return bmc, client

    def _allowed(self, client: RedfishClient, reset: dict[str, Any]) -> list[str] | None:
        values = reset.get(ALLOWED)
        if isinstance(values, list):
            return [str(v) for v in values]
        info = reset.get("@Redfish.ActionInfo")
        if not isinstance(info, str):
            return None
        for parameter in client.get(info).get("Parameters") or []:
            if parameter.get("Name") == "ResetType":
                return [str(v) for v in parameter.get("AllowableValues") or []] or None
        return None

    def _services(self, client: RedfishClient, collections: Iterable[str]) -> list[dict[str, Any]]:
        services: list[dict[str, Any]] = []
        for collection in collections:
            try:
                members = client.get(collection).get("Members") or []
            except NotFoundError:
                continue  # no event log here: not every BMC has one per system
            for member in members:
                if len(services) >= MAX_SERVICES:
                    return services
                link = _link(member)
                if link:
                    services.append(client.get(link))
        return services

    def _entries(
        self, client: RedfishClient, service: dict[str, Any], since: datetime
    ) -> list[tuple[datetime, str]]:
        link = _link(service.get("Entries"))
        name = str(service.get("Id") or service.get("Name") or "log")
        out: list[tuple[datetime, str]] = []
        seen: set[str] = set()
        fetched = 0
        for _ in range(MAX_PAGES):
            if not link or link in seen:
                break
            seen.add(link)
            try:
                page = client.get(link)
            except NotFoundError:
                break
            for member in page.get("Members") or []:
                entry = member
                if "Created" not in member and _link(member) and fetched < MAX_FETCHED:
                    fetched += 1
                    entry = client.get(_link(member) or "")
                line = _line(entry, name, since)
                if line is not None and line not in out:
                    out.append(line)
            link = page.get("Members@odata.nextLink") or page.get("@odata.nextLink")
        return out


def _link(value: Any) -> str | None:
    if isinstance(value, dict) and isinstance(value.get("@odata.id"), str):
        return str(value["@odata.id"])
    return None


def _line(entry: dict[str, Any], service: str, since: datetime) -> tuple[datetime, str] | None:
    """One entry as (created, evidence line), if it is newer than `since`."""
    try:
        created = datetime.fromisoformat(str(entry.get("Created")))
    except ValueError:
        return None
    if created.tzinfo is None or created <= since:
        return None
    kind = str(entry.get("EntryType") or "")
    parts = [
        f"{created:%Y-%m-%dT%H:%M:%S%z}",
        f"BMC {service}" + (f" {kind}" if kind and kind != service else ""),
        str(entry.get("Severity") or ""),
    ]
    sensor = " ".join(str(entry.get(k) or "") for k in ("SensorType", "EntryCode")).strip()
    text = " ".join(p for p in parts if p) + f": {entry.get('Message') or ''}"
    if sensor:
        text += f" ({sensor})"
    return created, " ".join(text.split())[:300]
