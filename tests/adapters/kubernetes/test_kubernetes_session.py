"""`KubeSession.close` leaves no task pending on its loop, also where cancelling one task
starts another (anyio's happy-eyeballs connect does this): a loop closed with such a task
drops a coroutine that was never awaited, which Python reports whenever it is collected (in
CI, as an error in whichever test ran then)."""

from __future__ import annotations

import asyncio

from autorecover.adapters.kubernetes.client import _cancel_others


def test_cancelling_waits_for_tasks_that_cancellation_started() -> None:
    started: list[asyncio.Task[None]] = []

    async def late() -> None:
        await asyncio.sleep(60)

    async def connecting() -> None:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            started.append(asyncio.ensure_future(late()))
            raise

    async def scenario() -> set[asyncio.Task[object]]:
        first = asyncio.ensure_future(connecting())
        await asyncio.sleep(0)  # let it reach its sleep
        await _cancel_others()
        assert first.cancelled()
        return {t for t in asyncio.all_tasks() if t is not asyncio.current_task()}

    loop = asyncio.new_event_loop()
    try:
        left = loop.run_until_complete(scenario())
    finally:
        loop.close()
    assert started, "the scenario must start a task while cancelling"
    assert not left
    assert started[0].cancelled()
