"""Crash points around an action's execution, shared by both controllers.

An action is recorded as intended before it runs and its outcome after; tests raise from
these hooks to crash a controller exactly between the two and show that a restart converges.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

A = TypeVar("A")


def _nothing(action: object) -> None:
    return None


# No slots: a slotted generic dataclass breaks `super()` on Python 3.11.
@dataclass(frozen=True)
class ExecutionHooks(Generic[A]):
    """Called around each execution; tests raise from them to crash the controller there."""

    before_execute: Callable[[A], None] = _nothing  # recorded, not executed
    after_execute: Callable[[A], None] = _nothing  # executed, outcome not recorded
