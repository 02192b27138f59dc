"""Timing the dashboard in a browser page, for its tests and benchmark: when a node's cell
changed colour, as the page itself saw it.

A `MutationObserver` in the page notes the moment (the page's `Date.now()`, the machine's
clock) the cell stops being healthy, whether the live stream's event recoloured it or the
page's refresh replaced it; reading the moment afterwards keeps the test's own polling (which
backs off to a second) out of the figure.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

_WATCH = """node => {
    window.autorecoverCellChangedAt = null;
    const check = () => {
        const cell = document.querySelector(`#fleet i[title="${CSS.escape(node)}"]`);
        if (cell && !cell.className.startsWith('h') && window.autorecoverCellChangedAt === null)
            window.autorecoverCellChangedAt = Date.now();
    };
    new MutationObserver(check).observe(document.querySelector('main'),
        {subtree: true, childList: true, attributes: true, attributeFilter: ['class']});
    check();
}"""


def watch_cell(page: Any, node: str) -> None:
    """Start noting when `node`'s cell on this fleet page leaves healthy (a Playwright page)."""
    page.evaluate(_WATCH, node)


def cell_changed_at(page: Any) -> datetime | None:
    """When the watched cell left healthy, by the page's clock; None while it has not."""
    ms = page.evaluate("() => window.autorecoverCellChangedAt")
    return None if ms is None else datetime.fromtimestamp(ms / 1000, UTC)
