"""Multi-literal prefilters: find the few places in a buffer where some anchor occurs.

Hyperscan (Intel's multi-pattern matcher) when it is installed; one `re` alternation of the
same literals otherwise, with identical results (ADR 0002).
"""

from __future__ import annotations

import re
from typing import Any, Protocol


class Prefilter(Protocol):
    """Finds end offsets of anchor occurrences in a buffer."""

    def ends(self, data: bytes) -> list[int]:
        """Offsets just past each anchor occurrence."""
        ...


class RePrefilter:
    """Portable prefilter: one `re` alternation of the anchors."""

    def __init__(self, anchors: list[tuple[bytes, bool]]) -> None:
        parts = [(b"(?i:" + re.escape(a) + b")") if ci else re.escape(a) for a, ci in anchors]
        self._re = re.compile(b"|".join(parts)) if parts else None

    def ends(self, data: bytes) -> list[int]:
        """Offsets just past each anchor occurrence."""
        return [m.end() for m in self._re.finditer(data)] if self._re else []


class HyperscanPrefilter:
    """Hyperscan (Intel's multi-pattern matcher) prefilter; far faster than `re`.

    Besides the anchors it can look for extra case-sensitive `markers` in the same pass.
    """

    def __init__(self, anchors: list[tuple[bytes, bool]], markers: tuple[bytes, ...] = ()) -> None:
        import hyperscan  # optional accelerator, imported only when wanted

        self.markers = markers
        self._anchors = anchors
        self._n_anchors = len(anchors)
        self._shift = max(1, (len(anchors) + len(markers)).bit_length())
        self._mask = (1 << self._shift) - 1
        # Compiled now, so that a bad anchor fails here; every file's first chunk uses it.
        self._db_markers = self._compile(hyperscan, anchors, markers)
        # The anchors alone serve only chunks dense with markers and `ends`: compiled on first
        # use, which a short run (`autorecover explain` on a bundle) often never makes.
        self._db_anchors: Any = None if markers else self._db_markers

    @staticmethod
    def _compile(hs: Any, anchors: list[tuple[bytes, bool]], markers: tuple[bytes, ...]) -> Any:
        db = hs.Database()
        expressions = [re.escape(a) for a, _ in anchors] + [re.escape(m) for m in markers]
        db.compile(
            expressions=expressions,
            ids=list(range(len(expressions))),
            elements=len(expressions),
            flags=[hs.HS_FLAG_CASELESS if ci else 0 for _, ci in anchors] + [0] * len(markers),
        )
        return db

    def _anchor_db(self) -> Any:
        if self._db_anchors is None:
            import hyperscan

            self._db_anchors = self._compile(hyperscan, self._anchors, ())
        return self._db_anchors

    def ends(self, data: bytes) -> list[int]:
        """Offsets just past each anchor occurrence."""
        return [end for end, _ in self.hits(data)[0]]

    def hits(
        self, data: bytes, *, with_markers: bool = False
    ) -> tuple[list[tuple[int, int]], list[list[int]] | None]:
        """(end, anchor index) of every anchor occurrence, in order of end offset; and, when
        `with_markers`, the sorted end offsets of every occurrence of each marker."""
        packed: list[int] = []
        shift = self._shift
        if with_markers and self.markers:
            found: list[list[int]] = [[] for _ in self.markers]
            base = self._n_anchors

            def on_hit(id_: int, _start: int, end: int, _flags: int, _ctx: object) -> None:
                if id_ < base:
                    packed.append((end << shift) | id_)
                else:
                    found[id_ - base].append(end)

            self._db_markers.scan(data, match_event_handler=on_hit)
            for ends in found:
                ends.sort()
            markers: list[list[int]] | None = found
        else:

            def on_anchor(id_: int, _start: int, end: int, _flags: int, _ctx: object) -> None:
                packed.append((end << shift) | id_)

            self._anchor_db().scan(data, match_event_handler=on_anchor)
            markers = None
        packed.sort()  # Hyperscan reports by end offset already; this makes it certain
        mask = self._mask
        return [(p >> shift, p & mask) for p in packed], markers


def make_prefilter(
    anchors: list[tuple[bytes, bool]], engine: str = "auto", *, markers: tuple[bytes, ...] = ()
) -> Prefilter:
    """The fastest available prefilter (`auto`), or the one named (`hyperscan`, `re`).

    `markers` are extra literals a Hyperscan prefilter also reports (see `hits`)."""
    if engine in ("auto", "hyperscan") and anchors:
        try:
            return HyperscanPrefilter(anchors, markers)
        except ImportError:
            if engine == "hyperscan":
                raise
    return RePrefilter(anchors)
