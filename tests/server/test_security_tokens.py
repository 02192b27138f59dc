"""Bearer tokens: the tokens file's format and errors, hashes only, rotation by editing the
file while the engine serves, and `autorecover token new|hash`."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from autorecover.adapters.reloading import ReloadingFile
from autorecover.adapters.store.sqlite import SqliteStore
from autorecover.cli.main import main
from autorecover.server.app import create_app
from autorecover.server.auth import Auth, TableTokens
from autorecover.server.identities import open_auth
from autorecover.server.tokens import (
    Role,
    TokensError,
    entry_text,
    new_token,
    parse_tokens,
    token_hash,
)
from server.support import Fleet, bearer


def entry(name: str, token: str, *roles: str, node: str | None = None) -> str:
    return entry_text(name, frozenset(Role(r) for r in roles), node, token_hash(token))


class Ticking:
    """A monotonic clock the test moves."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


# --- the format ------------------------------------------------------------------------------


def test_security_a_tokens_file_holds_hashes_and_matches_tokens() -> None:
    alice, agent = new_token(), new_token()
    assert alice.startswith("ar_") and len(alice) > 40 and alice != agent
    text = entry("alice", alice, "operator") + entry("gpu-01", agent, "agent", node="gpu-01")
    assert alice not in text and agent not in text
    assert hashlib.sha256(alice.encode()).hexdigest() in text
    table = parse_tokens(text)
    found = table.match(alice)
    assert found is not None and found.name == "alice" and found.roles == {Role.OPERATOR}
    agent_entry = table.match(agent + "\n")  # a token file's newline is not part of the token
    assert agent_entry is not None and agent_entry.node == "gpu-01"
    assert table.match(alice[:-1]) is None and table.match("") is None
    assert parse_tokens("").entries == ()


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("[[token]]\nname = 'a'\nroles = ['operator']\n", "token[0].sha256: missing"),
        ("[[token]]\nname = 'a'\nroles = ['root']\nsha256 = '" + "0" * 64 + "'\n",
         "token[0].roles: unknown role 'root'"),
        ("[[token]]\nname = 'a'\nroles = ['agent']\nsha256 = '" + "0" * 64 + "'\n",
         "token[0].node: an agent's token names its node"),
        ("[[token]]\nname = 'a'\nroles = ['viewer']\nnode = 'n1'\nsha256 = '" + "0" * 64 + "'\n",
         "token[0].node: only an agent's token names a node"),
        ("[[token]]\nname = 'a'\nroles = ['viewer']\nsha256 = 'ar_secret'\n",
         "token[0].sha256: must be 64 hex digits"),
        ("[[token]]\nname = 'a'\nroles = ['viewer']\ntoken = 'x'\nsha256 = '" + "0" * 64 + "'\n",
         "token[0].token: unknown field"),
        ("[[token]]\nname = 'a b'\nroles = ['viewer']\nsha256 = '" + "0" * 64 + "'\n",
         "token[0].name: 'a b' is not a name"),
        ("[[token]]\nname = 'a'\nroles = []\nsha256 = '" + "0" * 64 + "'\n",
         "token[0].roles: at least one role"),
        ("[tokens]\n", "unknown table 'tokens'"),
        ("token = [", "not TOML"),
        ("[[token]]\nname = 'a'\nroles = ['viewer']\nsha256 = '" + "0" * 64 + "'\n"
         "[[token]]\nname = 'b'\nroles = ['viewer']\nsha256 = '" + "0" * 64 + "'\n",
         "token[1].sha256: the same hash as token[0] (a)"),
    ],
)  # fmt: skip
def test_security_a_bad_tokens_file_names_the_entry_and_field(text: str, names: str) -> None:
    with pytest.raises(TokensError, match=r"^tokens\.toml: ") as refused:
        parse_tokens(text, "tokens.toml")
    assert names in str(refused.value)


# --- rotation ----------------------------------------------------------------------------------


def test_security_tokens_rotate_by_editing_the_file(tmp_path: Path) -> None:
    """Add the new token, move the client over, remove the old one: no restart."""
    fleet = Fleet()
    replica = fleet.replica(SqliteStore(tmp_path / "engine.db"), "a")
    old, new = new_token(), new_token()
    path = tmp_path / "tokens.toml"
    path.write_text(entry("grafana", old, "viewer"))
    clock = Ticking()
    tokens = ReloadingFile(path, parse_tokens, recheck_s=1.0, monotonic=clock)
    client = TestClient(create_app(replica.engine, auth=Auth([TableTokens(tokens)])))

    def status(token: str) -> int:
        return client.get("/api/v1/nodes", headers=bearer(token)).status_code

    assert (status(old), status(new)) == (200, 401)
    path.write_text(entry("grafana", old, "viewer") + entry("grafana", new, "viewer"))
    assert status(new) == 401  # looked at most once a second ...
    clock.now += 1.0
    assert (status(old), status(new)) == (200, 200)  # ... both work while clients move
    path.write_text(entry("grafana", new, "viewer"))
    clock.now += 1.0
    assert (status(old), status(new)) == (401, 200)
    # A broken edit keeps the last good table: nobody is locked out, nobody new gets in.
    path.write_text("[[token]]\nname = 'grafana'\n")
    clock.now += 1.0
    assert (status(old), status(new)) == (401, 200)
    assert "token[0].roles: missing" in tokens.last_error
    path.unlink()
    clock.now += 1.0
    assert status(new) == 200 and "cannot read" in tokens.last_error
    assert tokens.loads == 3


def test_security_serve_refuses_a_missing_or_bad_tokens_file(tmp_path: Path) -> None:
    with pytest.raises(OSError, match="No such file"):
        open_auth(tokens_file=tmp_path / "absent.toml")
    (tmp_path / "bad.toml").write_text("[[token]]\nname = 'x'\nroles = ['root']\n")
    with pytest.raises(TokensError, match=r"token\[0\]"):
        open_auth(tokens_file=tmp_path / "bad.toml")
    with pytest.raises(ValueError, match="--kube-role needs --kube-auth"):
        open_auth(tokens_file=None, kube_roles=["group:sre=operator"])
    with pytest.raises(ValueError, match="takes no credentials"):
        open_auth(tokens_file=tmp_path / "bad.toml", insecure=True)


# --- the CLI ---------------------------------------------------------------------------------


def test_security_token_new_prints_the_token_once_and_its_entry(tmp_path: Path) -> None:
    made = CliRunner().invoke(main, ["token", "new", "gpu-01", "--role", "agent",
                                     "--node", "gpu-01"])  # fmt: skip
    assert made.exit_code == 0, made.output
    token = made.stdout.strip()
    assert token.startswith("ar_") and "\n" not in token
    assert token not in made.stderr and token_hash(token) in made.stderr
    lines = made.stderr.splitlines()
    text = "\n".join(lines[lines.index("[[token]]") :])
    found = parse_tokens(text).match(token)
    assert found is not None and found.node == "gpu-01" and found.roles == {Role.AGENT}


def test_security_token_hash_reads_stdin(tmp_path: Path) -> None:
    runner = CliRunner()
    line = runner.invoke(main, ["token", "hash"], input="ar_abc\n")
    assert line.exit_code == 0 and line.stdout == f'sha256 = "{token_hash("ar_abc")}"\n'
    whole = runner.invoke(main, ["token", "hash", "--name", "alice", "--role", "operator"],
                          input="ar_abc\n")  # fmt: skip
    assert parse_tokens(whole.stdout).match("ar_abc") is not None
    assert runner.invoke(main, ["token", "hash"], input="").exit_code == 2
    refused = runner.invoke(main, ["token", "new", "x", "--role", "agent"])
    assert refused.exit_code == 2 and "names its node" in refused.output
    assert runner.invoke(main, ["token", "new", "x"]).exit_code == 2


def test_security_token_new_add_to_appends_the_entry_and_refuses_a_bad_file(
    tmp_path: Path,
) -> None:
    runner = CliRunner()
    tokens = tmp_path / "tokens.toml"
    first = runner.invoke(main, ["token", "new", "alice", "--role", "operator",
                                 "--add-to", str(tokens)])  # fmt: skip
    assert first.exit_code == 0, first.output
    assert tokens.stat().st_mode & 0o777 == 0o600
    second = runner.invoke(main, ["token", "new", "gpu-01", "--role", "agent", "--node", "gpu-01",
                                  "--add-to", str(tokens)])  # fmt: skip
    assert second.exit_code == 0, second.output
    table = parse_tokens(tokens.read_text())
    alice, agent = first.stdout.strip(), second.stdout.strip()
    assert alice not in tokens.read_text() and agent not in tokens.read_text()
    found_alice, found_agent = table.match(alice), table.match(agent)
    assert found_alice is not None and found_alice.roles >= {Role.OPERATOR}
    assert found_agent is not None and found_agent.node == "gpu-01"
    assert "added gpu-01's entry" in second.stderr and agent not in second.stderr
    # A file that is not a tokens file is named, left as it was, and no token is printed.
    broken = tmp_path / "broken.toml"
    broken.write_text("[[token]]\nname = 'x'\nroles = ['root']\nsha256 = '00'\n")
    refused = runner.invoke(main, ["token", "new", "bob", "--role", "viewer",
                                   "--add-to", str(broken)])  # fmt: skip
    assert refused.exit_code == 2 and "broken.toml" in refused.output
    assert "nothing was written" in refused.output and "ar_" not in refused.stdout
    assert broken.read_text() == "[[token]]\nname = 'x'\nroles = ['root']\nsha256 = '00'\n"
    # A file without a final newline still gets a well-formed entry.
    (tmp_path / "plain.toml").write_text(tokens.read_text().rstrip("\n"))
    third = runner.invoke(main, ["token", "new", "carol", "--role", "viewer",
                                 "--add-to", str(tmp_path / "plain.toml")])  # fmt: skip
    assert third.exit_code == 0, third.output
    assert parse_tokens((tmp_path / "plain.toml").read_text()).match(third.stdout.strip())
