"""A real, throwaway PostgreSQL for the tests: initdb + pg_ctl in a temporary directory.

It listens on 127.0.0.1 on a free port (and on a unix socket inside its own directory, so it
never touches the system's), with password authentication over TCP. Run as the `postgres`
user through `runuser` when the tests run as root (PostgreSQL refuses root). When the server
binaries are missing this raises: the PostgreSQL tier must fail, never be skipped.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import psycopg

PASSWORD = "autorecover-test"  # noqa: S105 (a throwaway cluster on loopback only)


def server_bin() -> Path:
    """The newest installed PostgreSQL server's bin directory."""
    found = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0,
    )
    if not found:
        raise RuntimeError(
            "PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin: "
            "install them (apt-get install -y postgresql) to run the PostgreSQL tests"
        )
    return found[-1].parent


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Cluster:
    """One running throwaway cluster."""

    root: Path
    port: int
    bin: Path
    as_postgres: bool

    def url(self, database: str = "postgres") -> str:
        """A libpq URL for the superuser on one database."""
        return f"postgresql://postgres:{PASSWORD}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        """A fresh, empty database; its URL."""
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def drop_database(self, name: str) -> None:
        """Drop a database, whoever is still connected to it."""
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def stop(self) -> None:
        """Stop the server and remove its files."""
        self._run("pg_ctl", "-D", str(self.root / "data"), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.root, ignore_errors=True)

    def _run(self, tool: str, *args: str) -> None:
        cmd = [str(self.bin / tool), *args]
        if self.as_postgres:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False)  # noqa: S603
        if done.returncode != 0:
            log = self.root / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(f"{tool} failed ({done.returncode}): {done.stderr}\n{tail}")


def start() -> Cluster:
    """initdb and start a cluster; raises (loudly) when it cannot."""
    as_postgres = os.geteuid() == 0
    root = Path(tempfile.mkdtemp(prefix="autorecover-pg-"))
    cluster = Cluster(root, free_port(), server_bin(), as_postgres)
    (root / "sock").mkdir()
    pwfile = root / "pw"
    pwfile.write_text(PASSWORD + "\n")
    if as_postgres:
        user = pwd.getpwnam("postgres")
        for path in (root, root / "sock", pwfile):
            os.chown(path, user.pw_uid, user.pw_gid)
    cluster._run(
        "initdb", "-D", str(root / "data"), "-U", "postgres", f"--pwfile={pwfile}",
        "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--no-sync",
    )  # fmt: skip
    options = (
        f"-p {cluster.port} -c listen_addresses=127.0.0.1 -k {root / 'sock'} "
        "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"  # speed: throwaway
    )
    cluster._run(
        "pg_ctl", "-D", str(root / "data"), "-l", str(root / "server.log"), "-o", options,
        "-w", "-t", "60", "start",
    )  # fmt: skip
    return cluster
