"""HTML building blocks of the dashboard's pages: escaping, the page frame, tables, forms.

Pages are plain strings built from the API's own records (`server.schemas`); every value
that came from a node, a log line or a person passes `esc`. No inline script or style is
ever written, so the Content-Security-Policy can forbid both (`HEADERS`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from html import escape

from autorecover import __version__
from autorecover.server.dashboard.sessions import Session

ROOT = "/ui"
HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; "
    "img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; "
    "base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}
NAV = (("fleet", "Fleet"), ("incidents", "Incidents"), ("jobs", "Jobs"))


def esc(value: object) -> str:
    """Text safe inside an element or a quoted attribute."""
    return escape("" if value is None else str(value), quote=True)


def when(at: datetime | None) -> str:
    """A time as people read it on one screen (UTC, to the second)."""
    if at is None:
        return "-"
    return f'<time datetime="{esc(at.isoformat())}">{at.strftime("%Y-%m-%d %H:%M:%S")}</time>'


def link(path: str, text: object, cls: str = "") -> str:
    """A link under the dashboard's root; `path` is built from quoted parts by the caller."""
    attr = f' class="{cls}"' if cls else ""
    return f'<a href="{ROOT}/{esc(path)}"{attr}>{esc(text)}</a>'


def table(head: Sequence[str], rows: Iterable[Sequence[str]], cls: str = "") -> str:
    """A table whose cells are already HTML (escape values before)."""
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    if not body:
        return '<p class="none">None.</p>'
    th = "".join(f"<th>{esc(h)}</th>" for h in head)
    attr = f' class="{cls}"' if cls else ""
    return f"<table{attr}><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


def action_form(session: Session, action: str, target: str, label: str, back: str) -> str:
    """An operator action's form: the reason asked for, the session's CSRF token inside."""
    return (
        f'<form class="act" method="post" action="{ROOT}/act">'
        f'<input type="hidden" name="csrf" value="{esc(session.csrf)}">'
        f'<input type="hidden" name="action" value="{esc(action)}">'
        f'<input type="hidden" name="target" value="{esc(target)}">'
        f'<input type="hidden" name="back" value="{esc(back)}">'
        f'<input name="why" required maxlength="1000" placeholder="reason (recorded)" '
        f'aria-label="reason for {esc(label)}">'
        f'<button type="submit" data-action="{esc(action)}">{esc(label)}</button></form>'
    )


def page(
    title: str,
    body: str,
    *,
    who: str,
    roles: str,
    session: Session | None,
    current: str,
    notice: str = "",
) -> str:
    """The frame every page shares: navigation, who is signed in, the live-update hook."""
    nav = "".join(
        f'<a href="{ROOT}/{key}"{" class=on" if key == current else ""}>{text}</a>'
        for key, text in NAV
    )
    out = ""
    if session is not None and session.token is not None:
        out = (
            f'<form method="post" action="{ROOT}/logout" class="out">'
            f'<input type="hidden" name="csrf" value="{esc(session.csrf)}">'
            "<button>Sign out</button></form>"
        )
    flash = f'<p class="notice">{esc(notice)}</p>' if notice else ""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        '<link rel="icon" href="data:,">'
        f"<title>{esc(title)} · autorecover</title>"
        f'<link rel="stylesheet" href="{ROOT}/static/dashboard.css?v={__version__}">'
        f'<script src="{ROOT}/static/dashboard.js?v={__version__}" defer></script>'
        f'</head><body><header><b>autorecover</b><nav>{nav}</nav><span id="live" '
        f'class="live" title="live updates">●</span><span class="who">{esc(who)} '
        f"({esc(roles)})</span>{out}</header>"
        f"<main>{flash}<h1>{esc(title)}</h1>{body}</main></body></html>"
    )


def login_page(error: str = "") -> str:
    """Sign in: paste a bearer token once (it is never shown again)."""
    problem = f'<p class="error">{esc(error)}</p>' if error else ""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<link rel="icon" href="data:,"><title>Sign in · autorecover</title>'
        f'<link rel="stylesheet" href="{ROOT}/static/dashboard.css?v={__version__}">'
        '</head><body class="login"><main><h1>autorecover</h1>'
        f"{problem}"
        f'<form method="post" action="{ROOT}/login">'
        '<label for="token">API token (viewer, evidence or operator)</label>'
        '<input id="token" name="token" type="password" autocomplete="off" required>'
        "<button>Sign in</button></form>"
        "<p>The token is checked, kept in the engine's memory for this session, and never "
        "shown; the browser holds only a session cookie.</p></main></body></html>"
    )
