"""Run sushy-tools' Redfish emulator, its fake systems driver, with event logs beside it.

`python -m autorecover.testing.redfish_bmc CONFIG LOGS` runs the real `sushy-emulator` (its
Flask application and `main`, basic auth and all, as configured by CONFIG) with one addition:
the emulator implements no `LogServices`, so `/redfish/v1/Systems/<id>/LogServices[/...]` is
served from the mockup tree under LOGS (`LOGS/<id>/LogServices/.../index.json`, the layout of
DMTF's mockups and of `sushy-static`), behind the same authentication; and its fake driver's
power changes take a fixed `POWER_DELAY_S` (sushy-tools draws 1 to 11 s, counted from the whole
second, so a restart could read `Off` for only milliseconds and a test reading it raced the
driver). Started by `autorecover.testing.redfish`; never part of the engine.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

# A restart reads `Off` for POWER_DELAY_S - 1 to POWER_DELAY_S seconds, then `On`.
POWER_DELAY_S = 4


class _FixedDelay:
    """Stands in for the fake driver's `random`: every power change takes POWER_DELAY_S."""

    @staticmethod
    def randint(_low: int, _high: int) -> int:
        return POWER_DELAY_S


def main(argv: list[str]) -> int:
    """Serve until killed."""
    import flask
    from sushy_tools import error
    from sushy_tools.emulator import main as emulator
    from sushy_tools.emulator.resources.systems import fakedriver

    fakedriver.random = _FixedDelay

    config, logs = argv[1], Path(argv[2]).resolve()

    def log_services(identity: str, rest: str = "") -> Any:
        page = (logs / identity / "LogServices" / rest / "index.json").resolve()
        if not page.is_relative_to(logs) or not page.is_file():
            raise error.NotFound(f"no log resource {identity}/LogServices/{rest}")
        return flask.Response(page.read_bytes(), content_type="application/json")

    app = emulator.app
    app.add_url_rule("/redfish/v1/Systems/<identity>/LogServices", "ar_logs", log_services)
    app.add_url_rule(
        "/redfish/v1/Systems/<identity>/LogServices/<path:rest>", "ar_log_pages", log_services
    )
    logging.basicConfig(
        level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(name)s %(message)s"
    )
    sys.argv = ["sushy-emulator", "--config", config, "--fake"]
    return int(emulator.main() or 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
