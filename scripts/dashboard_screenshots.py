#!/usr/bin/env python3
"""Screenshots of the dashboard's pages for docs/ (docs/img/dashboard-*.png).

    uv run python scripts/dashboard_screenshots.py [--out docs/img]

Runs the live demonstration (`autorecover demo`, its dashboard on a free loopback port),
injects an XID 79 on node-2, waits until job recovery has requeued the job and the new attempt
took its first step (the incident closed, its breakdown complete), and photographs each page
in Debian's chromium, headless, through Playwright (`executable_path`: no browser download).
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

CHROMIUM = "/usr/bin/chromium"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as r:
        return json.loads(r.read())


def wait(what: str, check: Any, timeout_s: float = 90.0) -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            found = check()
            if found:
                return found
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit(f"timed out waiting for {what}")


def quote(part: str) -> str:
    return urllib.parse.quote(part, safe="")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/img"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    directory = Path(tempfile.mkdtemp(prefix="autorecover-shots-"))
    demo = subprocess.Popen(
        [sys.executable, "-m", "autorecover", "demo", "--dir", str(directory),
         "--dashboard", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        wait("the dashboard", lambda: get(f"{base}/readyz")["status"] == "ok")
        time.sleep(2)  # a few steps of training first
        subprocess.run(
            [sys.executable, "-m", "autorecover", "demo", "inject", "xid79", "--node", "node-2",
             "--dir", str(directory)], check=True, stdout=subprocess.DEVNULL,
        )  # fmt: skip

        def closed_job_incident() -> dict[str, Any] | None:
            found = [i for i in get(f"{base}/api/v1/incidents") if i["source"] == "jobs"]
            return next((i for i in found if i["state"] == "closed"), None)

        job = wait("the job's recovery", closed_job_incident)
        hardware = next(i for i in get(f"{base}/api/v1/incidents") if i["source"] == "hardware")
        pages = {
            "fleet": "fleet",
            "incidents": "incidents",
            "incident": f"incidents/{quote(job['id'])}",
            "hardware-incident": f"incidents/{quote(hardware['id'])}",
            "jobs": "jobs",
            "node": "nodes/node-2",
        }
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                        args=["--no-sandbox"])  # fmt: skip
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            for name, path in pages.items():
                page.goto(f"{base}/ui/{path}")
                page.wait_for_selector("#live.on")
                target = args.out / f"dashboard-{name}.png"
                page.screenshot(path=str(target), full_page=True)
                print(target)
            browser.close()
    finally:
        demo.terminate()
        demo.wait(30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
