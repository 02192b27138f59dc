"""A real Redfish service for the tests: sushy-tools' emulator with its fake systems driver.

`start(["gpu01", ...])` writes an emulator configuration (one fake system per node, powered
on; HTTP basic auth on, a bcrypt htpasswd file; its state in the rig's own folder), runs
`autorecover.testing.redfish_bmc` (the real `sushy-emulator`, plus event logs served from a
mockup tree, which the emulator lacks) on a free loopback port, and waits until it answers.
The `RedfishRig` it returns names the URL, each node's system id and a credentials file for
an inventory; shows what reached the BMC (`power_state`, `resets`: the emulator's own log of
every reset it took); lets a test put SEL entries in a node's event log (`add_sel`); and
`stop` ends it and removes its files. The emulator is a dev dependency (`sushy-tools`): when
it is missing `RigError` is raised and the tests fail, never skip.

Not a BMC: the fake driver only changes a recorded power state (a restart shows `Off`, then
`On` 3 to 4 s later: `redfish_bmc.POWER_DELAY_S`); no host is reset.
"""

from __future__ import annotations

import base64
import ctypes
import json
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

_RESET = re.compile(r'System "([^"]+)" power state set to "([^"]+)"')
_PR_SET_PDEATHSIG = 1  # linux/prctl.h


class RigError(Exception):
    """The emulator is missing or did not start."""


def free_port() -> int:
    """A loopback TCP port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class RedfishRig:
    """One running emulator."""

    root: Path
    port: int
    process: subprocess.Popen[bytes]
    user: str
    password: str
    systems: dict[str, str] = field(default_factory=dict)  # node -> system id
    tls: bool = False

    @property
    def url(self) -> str:
        """The BMC's address (what an inventory's `url` holds)."""
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"

    @property
    def credentials(self) -> Path:
        """A file holding `user:password` (what `credentials = "file:..."` points at)."""
        return self.root / "credentials"

    def system(self, node: str) -> str:
        """The node's system id under /redfish/v1/Systems/."""
        return self.systems[node]

    def inventory(self, nodes: Sequence[str] | None = None) -> str:
        """An inventory document for these nodes (all by default)."""
        chosen = list(self.systems) if nodes is None else list(nodes)
        return "".join(
            f'[[bmc]]\nnode = "{n}"\nurl = "{self.url}"\nsystem = "{self.systems[n]}"\n'
            f'credentials = "file:{self.credentials}"\n\n'
            for n in chosen
        )

    def get(self, path: str) -> dict[str, Any]:
        """A resource, read with the rig's credentials."""
        token = base64.b64encode(f"{self.user}:{self.password}".encode()).decode()
        request = urllib.request.Request(  # noqa: S310 - loopback http
            self.url + path, headers={"Authorization": f"Basic {token}"}
        )
        with urllib.request.urlopen(request, timeout=10, context=_loopback()) as response:  # noqa: S310
            value: dict[str, Any] = json.loads(response.read())
        return value

    def power_state(self, node: str) -> str:
        """The fake system's power state, as the emulator reports it."""
        return str(self.get(f"/redfish/v1/Systems/{self.systems[node]}")["PowerState"])

    def resets(self) -> list[tuple[str, str]]:
        """Every reset the emulator took, as (node, ResetType), from its own log."""
        names = {v: k for k, v in self.systems.items()}
        text = self.log()
        return [(names.get(s, s), kind) for s, kind in _RESET.findall(text)]

    def log(self) -> str:
        """The emulator's log so far."""
        return (self.root / "emulator.log").read_text(encoding="utf-8", errors="replace")

    def add_sel(self, node: str, entries: Sequence[Mapping[str, Any]]) -> None:
        """Append entries (LogEntry objects, as a BMC returns them) to the node's SEL."""
        system = self.systems[node]
        base = f"/redfish/v1/Systems/{system}/LogServices"
        folder = self.root / "logs" / system / "LogServices"
        folder.mkdir(parents=True, exist_ok=True)
        listing = folder / "entries.json"  # the log's entries so far (not served)
        kept: list[dict[str, Any]] = json.loads(listing.read_text()) if listing.is_file() else []
        for entry in entries:
            n = len(kept) + 1
            kept.append({**entry, "@odata.id": f"{base}/SEL/Entries/{n}", "Id": str(n)})
        listing.write_text(json.dumps(kept))
        pages = {
            "": {"@odata.id": base, "Members": [{"@odata.id": f"{base}/SEL"}],
                 "Members@odata.count": 1, "Name": "Log Service Collection"},
            "SEL": {"@odata.id": f"{base}/SEL", "Id": "SEL", "Name": "System Event Log",
                    "LogEntryType": "SEL", "Entries": {"@odata.id": f"{base}/SEL/Entries"}},
            "SEL/Entries": {"@odata.id": f"{base}/SEL/Entries", "Members": kept,
                            "Members@odata.count": len(kept), "Name": "SEL Entries"},
        }  # fmt: skip
        for rel, page in pages.items():
            target = folder / rel / "index.json"
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_suffix(".tmp")
            tmp.write_text(json.dumps(page))
            tmp.replace(target)

    def stop(self) -> None:
        """End the emulator and remove its files."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        shutil.rmtree(self.root, ignore_errors=True)


def _htpasswd(user: str, password: str) -> str:
    try:
        import bcrypt  # a dependency of sushy-tools
    except ImportError:
        raise RigError("sushy-tools is not installed (a dev dependency): uv sync") from None
    digest = bcrypt.hashpw(password.encode(), bcrypt.gensalt(rounds=4)).decode()
    return f"{user}:{digest}\n"


def _loopback() -> ssl.SSLContext:
    """The rig's own reads of its own loopback emulator: its certificate is not the point."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


def start(
    nodes: Sequence[str],
    *,
    user: str = "autorecover",
    password: str = "",
    tls: tuple[Path, Path] | None = None,
    timeout_s: float = 60.0,
) -> RedfishRig:
    """Start an emulator with one powered-on fake system per node; HTTPS with `tls`'s
    (certificate, key) files."""
    password = password or uuid.uuid4().hex
    root = Path(tempfile.mkdtemp(prefix="autorecover-redfish-"))
    systems = {n: str(uuid.uuid4()) for n in nodes}
    fake = [
        {"uuid": s, "name": n, "power_state": "On", "external_notifier": False, "nics": []}
        for n, s in systems.items()
    ]
    port = free_port()
    (root / "htpasswd").write_text(_htpasswd(user, password))
    (root / "credentials").write_text(f"{user}:{password}\n")
    (root / "credentials").chmod(0o600)
    (root / "logs").mkdir()
    settings = {
        "SUSHY_EMULATOR_LISTEN_IP": "127.0.0.1",
        "SUSHY_EMULATOR_LISTEN_PORT": port,
        "SUSHY_EMULATOR_AUTH_FILE": str(root / "htpasswd"),
        "SUSHY_EMULATOR_STATE_DIR": str(root / "state"),
        "SUSHY_EMULATOR_FAKE_DRIVER": True,
        "SUSHY_EMULATOR_FAKE_SYSTEMS": fake,
    }
    if tls is not None:
        settings["SUSHY_EMULATOR_SSL_CERT"], settings["SUSHY_EMULATOR_SSL_KEY"] = map(str, tls)
    (root / "emulator.conf").write_text(
        "".join(f"{k} = {v!r}\n" for k, v in settings.items())
    )  # the emulator reads its configuration as Python (Flask's from_pyfile)
    logfile = (root / "emulator.log").open("wb")
    process = subprocess.Popen(  # noqa: S603 - our interpreter, our module, our files
        [sys.executable, "-m", "autorecover.testing.redfish_bmc",
         str(root / "emulator.conf"), str(root / "logs")],
        stdout=logfile, stderr=subprocess.STDOUT, cwd=root, preexec_fn=_end_with_parent,
    )  # fmt: skip
    logfile.close()
    rig = RedfishRig(root, port, process, user, password, systems, tls is not None)
    try:
        _wait_ready(rig, timeout_s)
    except BaseException:  # a timeout, an interrupt: the emulator goes with the failed start
        rig.stop()
        raise
    return rig


def _wait_ready(rig: RedfishRig, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if rig.process.poll() is not None:
            log = rig.log()[-4000:]
            raise RigError(f"the Redfish emulator exited ({rig.process.returncode}):\n{log}")
        try:
            ready = urllib.request.urlopen(rig.url + "/redfish/v1/", timeout=2, context=_loopback())  # noqa: S310
            with ready as r:
                if r.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            time.sleep(0.2)
    log = rig.log()[-4000:]
    raise RigError(f"the Redfish emulator did not answer within {timeout_s:.0f} s:\n{log}")


def _end_with_parent() -> None:
    """In the emulator's process before it runs: ask Linux for SIGTERM when the process that
    started it ends, so a test worker that ends before its fixtures' teardown (one run left an
    emulator behind) leaves none running. Elsewhere a no-op."""
    if sys.platform == "linux":
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def sel_entry(
    message: str,
    created: datetime,
    *,
    severity: str = "Critical",
    sensor: str = "Processor",
    code: str = "Assert",
) -> dict[str, Any]:
    """A SEL LogEntry as a BMC shows one."""
    return {
        "@odata.type": "#LogEntry.v1_14_0.LogEntry",
        "Name": "SEL entry",
        "EntryType": "SEL",
        "Severity": severity,
        "Created": created.isoformat().replace("+00:00", "Z"),
        "EntryCode": code,
        "SensorType": sensor,
        "Message": message,
    }
