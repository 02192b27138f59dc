"""Option choices and defaults read from their module only when a command needs them.

Every command's options are built when `autorecover` starts, for every command. A choice list
or a default kept beside heavy code (the server, the demo, the Kubernetes client, the agent's
wiring) would pull that code into `autorecover --help` and `autorecover explain`. These name
the value as `module:NAME` instead and import it on first use: when the command runs, or when
its own `--help` prints it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import click


def load(where: str) -> Any:
    """The value `module:NAME` names, importing the module."""
    module, _, name = where.partition(":")
    return getattr(importlib.import_module(module), name)


class Deferred:
    """An option's default, read on first use.

    click calls a callable default for the value, and prints `str()` of one that is not a
    function in `--help`: the help shows the real default rather than "(dynamic)".
    """

    def __init__(self, where: str, shape: Callable[[Any], Any] | None = None) -> None:
        self.where = where
        self.shape = shape

    def __call__(self) -> Any:
        value = load(self.where)
        return value if self.shape is None else self.shape(value)

    def __str__(self) -> str:
        value = self()
        return ", ".join(map(str, value)) if isinstance(value, tuple | list) else str(value)


class DeferredChoice(click.Choice[str]):
    """A `click.Choice` of the names in `module:NAME` (then `extra`), read on first use."""

    def __init__(self, where: str, extra: tuple[str, ...] = ()) -> None:
        # Not Choice.__init__: it would read the choices now.
        self.where = where
        self.extra = extra
        self.case_sensitive = True
        self._choices: tuple[str, ...] | None = None

    @property
    def choices(self) -> tuple[str, ...]:
        """The choices, imported the first time anything asks."""
        if self._choices is None:
            self._choices = (*load(self.where), *self.extra)
        return self._choices

    @choices.setter
    def choices(self, value: tuple[str, ...]) -> None:
        self._choices = tuple(value)
