"""The real Alertmanager for the tests in this folder: installed when missing, never skipped.

`alertmanager_installed` (session): Debian's `prometheus-alertmanager` and `prometheus` (for
promtool) are installed when a binary is missing; if that fails every test here FAILS with the
reason. `sink` (per test): an HTTP server keeping what Alertmanager's webhook receiver posts.
`alertmanager` (per test): a fresh Alertmanager on a free loopback port whose one route sends
every alert, resolutions included, to the sink within about a second.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator

import pytest

from autorecover.testing.alertmanager import (
    Alertmanager,
    RigError,
    WebhookSink,
    ensure_installed,
    start,
    webhook_config,
)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    setattr(item, f"rep_{report.when}", report)  # the fixture below prints the log on failure
    return report


@pytest.fixture(scope="session")
def alertmanager_installed() -> str:
    try:
        return ensure_installed()
    except RigError as exc:
        pytest.fail(f"Alertmanager is not installed and could not be: {exc}", pytrace=False)


@pytest.fixture
def sink() -> Iterator[WebhookSink]:
    receiver = WebhookSink().start()
    yield receiver
    receiver.stop()


@pytest.fixture
def alertmanager(
    alertmanager_installed: str, sink: WebhookSink, request: pytest.FixtureRequest
) -> Iterator[Alertmanager]:
    try:
        am = start(webhook_config(sink.url))
    except RigError as exc:
        pytest.fail(f"Alertmanager did not start ({alertmanager_installed}): {exc}", pytrace=False)
    yield am
    call = getattr(request.node, "rep_call", None)
    if call is not None and call.failed:
        print(f"\nalertmanager log:\n{am.log()[-4000:]}")
    am.stop()
