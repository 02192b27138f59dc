"""What a client of the engine presents: a bearer token, and TLS trust and identity.

The token comes from a value or a file; the file is read on every request, because on
Kubernetes the kubelet rewrites a projected ServiceAccount token before it expires. TLS: a
CA file to verify the engine by (default: the system's), and a client certificate and key
for mutual TLS.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from pathlib import Path


class CredentialsError(ValueError):
    """A token file or certificate cannot be read; the message names the file."""


@dataclass(frozen=True, slots=True)
class ClientCredentials:
    """A token (or its file), a CA to trust, a client certificate and key; all optional."""

    token: str | None = None
    token_file: Path | None = None
    ca_file: Path | None = None
    cert_file: Path | None = None
    key_file: Path | None = None

    def __post_init__(self) -> None:
        if (self.cert_file is None) != (self.key_file is None):
            raise CredentialsError("a client certificate and its key go together")

    def bearer(self) -> str | None:
        """The token to send now, or None."""
        if self.token_file is not None:
            try:
                token = self.token_file.read_text(encoding="utf-8").strip()
            except (OSError, UnicodeDecodeError) as exc:
                raise CredentialsError(
                    f"cannot read the token file {self.token_file}: {exc}"
                ) from None
            if not token:
                raise CredentialsError(f"the token file {self.token_file} is empty")
            return token
        return self.token.strip() if self.token and self.token.strip() else None

    def headers(self) -> dict[str, str]:
        """The Authorization header, when there is a token."""
        token = self.bearer()
        return {"Authorization": f"Bearer {token}"} if token else {}

    def ssl_context(self) -> ssl.SSLContext | None:
        """The TLS context for https (None: the defaults, when nothing is configured)."""
        if self.ca_file is None and self.cert_file is None:
            return None
        try:
            context = ssl.create_default_context(cafile=str(self.ca_file) if self.ca_file else None)
            if self.cert_file is not None and self.key_file is not None:
                context.load_cert_chain(str(self.cert_file), str(self.key_file))
        except (OSError, ssl.SSLError) as exc:
            raise CredentialsError(f"cannot load the TLS files: {exc}") from None
        return context
