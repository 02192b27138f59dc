"""Helpers for the agent's tests: fixture paths, explicit times, sysfs builders, an engine."""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parents[1] / "fixtures" / "agent"
NODES = FIXTURES / "nodes"
T0 = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)


def at(seconds: float) -> datetime:
    """T0 plus some seconds."""
    return T0 + timedelta(seconds=seconds)


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def ib_port(
    root: Path,
    dev: str = "mlx5_0",
    port: int = 1,
    *,
    state: str = "4: ACTIVE",
    phys: str = "5: LinkUp",
    **counters: int,
) -> Path:
    """One port under root/sys/class/infiniband; counters by name (hw_ ones prefixed hw_)."""
    base = root / "sys/class/infiniband" / dev / "ports" / str(port)
    write(base / "state", state + "\n")
    write(base / "phys_state", phys + "\n")
    write(base / "link_layer", "InfiniBand\n")
    for name, value in counters.items():
        folder = "hw_counters" if name.startswith("hw_") else "counters"
        write(base / folder / name.removeprefix("hw_"), f"{value}\n")
    return base


def pci_device(
    root: Path,
    bdf: str,
    *,
    vendor: str = "0x10de",
    klass: str = "0x030200",
    speed: tuple[str, str] = ("32.0 GT/s PCIe", "32.0 GT/s PCIe"),
    width: tuple[int, int] = (16, 16),
    fatal: int = 0,
    nonfatal: int = 0,
    correctable: int = 0,
) -> Path:
    base = root / "sys/bus/pci/devices" / bdf
    write(base / "vendor", vendor + "\n")
    write(base / "class", klass + "\n")
    write(base / "current_link_speed", speed[0] + "\n")
    write(base / "max_link_speed", speed[1] + "\n")
    write(base / "current_link_width", f"{width[0]}\n")
    write(base / "max_link_width", f"{width[1]}\n")
    write(base / "aer_dev_fatal", f"MalfTLP {fatal}\nTOTAL_ERR_FATAL {fatal}\n")
    write(base / "aer_dev_nonfatal", f"CmpltTO {nonfatal}\nTOTAL_ERR_NONFATAL {nonfatal}\n")
    write(base / "aer_dev_correctable", f"BadTLP {correctable}\nTOTAL_ERR_COR {correctable}\n")
    return base


class Engine:
    """A real HTTP server standing in for the engine: records batches, answers as told."""

    def __init__(self) -> None:
        self.batches: list[dict[str, Any]] = []
        self.answers: list[tuple[int, dict[str, str]]] = []  # consumed first, then 200
        engine = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                status, headers = engine.answers.pop(0) if engine.answers else (200, {})
                if status == 200:
                    engine.batches.append(json.loads(body))
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def signals(self) -> list[dict[str, Any]]:
        return [s for b in self.batches for s in b["signals"]]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)
