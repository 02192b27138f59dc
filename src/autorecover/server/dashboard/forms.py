"""URL pieces the dashboard writes and reads: quoting a path part, parsing a posted form.

The server layer keeps `urllib` out (an import contract: no HTTP client there), and the
dashboard's forms are small `application/x-www-form-urlencoded` bodies, so both are here.
"""

from __future__ import annotations

import re

_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_ESCAPE = re.compile(rb"%([0-9A-Fa-f]{2})")
MAX_FORM_BYTES = 16 * 1024  # a reason of 1,000 characters, percent-encoded, and the rest
MAX_FIELDS = 16


class FormError(ValueError):
    """A posted form that cannot be read; the message says why."""


def quote(part: str) -> str:
    """One path part, percent-encoded (UTF-8) except RFC 3986's unreserved characters."""
    return "".join(c if c in _SAFE else "".join(f"%{b:02X}" for b in c.encode()) for c in part)


def _unquote(raw: bytes) -> str:
    data = _ESCAPE.sub(lambda m: bytes([int(m.group(1), 16)]), raw.replace(b"+", b" "))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise FormError("a field is not UTF-8") from None


def parse_form(body: bytes) -> dict[str, str]:
    """A urlencoded body as {name: value} (the first value of a repeated name)."""
    if len(body) > MAX_FORM_BYTES:
        raise FormError(f"the form is over {MAX_FORM_BYTES} bytes")
    pairs = [p for p in body.split(b"&") if p]
    if len(pairs) > MAX_FIELDS:
        raise FormError(f"the form has over {MAX_FIELDS} fields")
    out: dict[str, str] = {}
    for pair in pairs:
        name, _, value = pair.partition(b"=")
        key = _unquote(name)
        if "\x00" in key or "\x00" in (text := _unquote(value)):
            raise FormError(f"field {key!r} contains NUL")
        out.setdefault(key, text)
    return out
