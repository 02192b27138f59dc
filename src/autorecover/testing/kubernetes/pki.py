"""Certificates and kubeconfigs for the test control plane, made with `openssl` (argument lists).

One CA signs the API server's serving certificate (loopback and the in-cluster names), the
admin's client certificate (`system:masters`), and any user's a test asks for (RBAC tests
authenticate as `system:serviceaccount:NS:NAME` by a certificate's CN); an EC key pair signs
service-account tokens. Keys are P-256: quick to make on a small machine.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from collections.abc import Sequence
from pathlib import Path

SERVER_NAMES = ("IP:127.0.0.1,IP:10.96.0.1,DNS:localhost,DNS:kubernetes,"
                "DNS:kubernetes.default,DNS:kubernetes.default.svc")  # fmt: skip
DAYS = "30"


class PkiError(RuntimeError):
    """openssl refused; the message has its command and error."""


class TestPki:
    """The files under one folder: `ca.crt`, `apiserver.crt`, `admin.crt`, `sa.key`, ..."""

    __test__ = False  # not a pytest class, whatever its name

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, name: str) -> Path:
        """One file of the PKI."""
        return self.folder / name

    def create(self) -> None:
        """The CA, the API server's and admin's certificates, the service-account keys."""
        if self.path("admin.crt").exists():
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        self._key("ca")
        self._openssl("req", "-x509", "-new", "-key", "ca.key", "-subj", "/CN=autorecover-test-ca",
                      "-days", DAYS, "-out", "ca.crt")  # fmt: skip
        self.path("server.ext").write_text(
            f"subjectAltName={SERVER_NAMES}\nextendedKeyUsage=serverAuth\n"
        )
        self.path("client.ext").write_text("extendedKeyUsage=clientAuth\n")
        self._signed("apiserver", "/CN=kube-apiserver", "server.ext")
        self._signed("admin", "/O=system:masters/CN=autorecover-admin", "client.ext")
        self._key("sa")
        self._openssl("pkey", "-in", "sa.key", "-pubout", "-out", "sa.pub")

    def user(self, user: str, groups: Sequence[str] = ()) -> tuple[Path, Path]:
        """A client certificate and key for `user` in `groups`."""
        name = "user-" + hashlib.sha256(user.encode()).hexdigest()[:12]
        subject = "".join(f"/O={g}" for g in groups) + f"/CN={user}"
        self._signed(name, subject, "client.ext")
        return self.path(f"{name}.crt"), self.path(f"{name}.key")

    def kubeconfig(self, path: Path, server: str, cert: Path, key: Path) -> Path:
        """A kubeconfig for `server` with this client certificate (JSON is YAML)."""
        config = {
            "apiVersion": "v1", "kind": "Config", "current-context": "test",
            "clusters": [{"name": "test", "cluster": {
                "server": server, "certificate-authority": str(self.path("ca.crt"))}}],
            "users": [{"name": "user", "user": {
                "client-certificate": str(cert), "client-key": str(key)}}],
            "contexts": [{"name": "test", "context": {"cluster": "test", "user": "user"}}],
        }  # fmt: skip
        path.write_text(json.dumps(config, indent=2))
        return path

    def _key(self, name: str) -> None:
        self._openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
                      "-out", f"{name}.key")  # fmt: skip

    def _signed(self, name: str, subject: str, ext: str) -> None:
        self._key(name)
        self._openssl("req", "-new", "-key", f"{name}.key", "-subj", subject,
                      "-out", f"{name}.csr")  # fmt: skip
        self._openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
                      "-CAcreateserial", "-days", DAYS, "-extfile", ext,
                      "-out", f"{name}.crt")  # fmt: skip

    def _openssl(self, *args: str) -> None:
        done = subprocess.run(["openssl", *args], cwd=self.folder, capture_output=True,  # noqa: S603,S607
                              text=True, check=False)  # fmt: skip
        if done.returncode != 0:
            raise PkiError(f"openssl {' '.join(args)}: {done.stderr[-1000:]}")
