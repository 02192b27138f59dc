"""Validated Kubernetes names: nodes, objects, namespaces, and the job ids the engine uses.

Names reach the API server inside URLs and label selectors, so each is held to Kubernetes'
own rules before it is used: a bad name fails here, with the value and the rule, rather than
as an opaque 404 or 422 (or, worse, as a path that names some other object). A job's id in
the engine is `namespace/name` for a PyTorchJob, `jobset:namespace/name` for a JobSet and
`trainjob:namespace/name` for a Kubeflow TrainJob (`:` is in no Kubernetes name, so they never
meet).
"""

from __future__ import annotations

import re

MAX_SUBDOMAIN = 253
MAX_LABEL = 63
_LABEL = r"[a-z0-9](?:[-a-z0-9]*[a-z0-9])?"
DNS1123_LABEL = re.compile(_LABEL)
DNS1123_SUBDOMAIN = re.compile(rf"{_LABEL}(?:\.{_LABEL})*")

_SUBDOMAIN_RULE = (
    f"a DNS-1123 subdomain: at most {MAX_SUBDOMAIN} characters of lower-case letters, digits, "
    "'-' and '.', starting and ending with a letter or digit"
)
_LABEL_RULE = (
    f"a DNS-1123 label: at most {MAX_LABEL} characters of lower-case letters, digits and '-', "
    "starting and ending with a letter or digit"
)


class InvalidNameError(ValueError):
    """A name breaks Kubernetes' naming rules; the message names the value and the rule."""


InvalidName = InvalidNameError  # the name the adapter's first sketch used


def valid_node_name(name: str) -> str:
    """The node name, if it is a DNS-1123 subdomain; raises `InvalidNameError` otherwise."""
    return _subdomain(name, "node name")


def valid_object_name(name: str) -> str:
    """The object's name, if it is a DNS-1123 subdomain; raises `InvalidNameError` otherwise."""
    return _subdomain(name, "object name")


def valid_namespace(name: str) -> str:
    """The namespace, if it is a DNS-1123 label; raises `InvalidNameError` otherwise."""
    if not isinstance(name, str) or len(name) > MAX_LABEL or not DNS1123_LABEL.fullmatch(name):
        raise InvalidNameError(f"not a valid namespace: {_show(name)} must be {_LABEL_RULE}")
    return name


def job_key(namespace: str, name: str) -> str:
    """`"namespace/name"`, the job's id in the engine, from valid parts."""
    return f"{valid_namespace(namespace)}/{valid_object_name(name)}"


def parse_job_key(key: str) -> tuple[str, str]:
    """`"namespace/name"` -> (namespace, name), each valid; raises `InvalidNameError`."""
    if not isinstance(key, str) or key.count("/") != 1:
        raise InvalidNameError(f"not a valid job id: {_show(key)} must be 'namespace/name'")
    namespace, name = key.split("/")
    return valid_namespace(namespace), valid_object_name(name)


JOBSET_PREFIX = "jobset:"
TRAINJOB_PREFIX = "trainjob:"


def jobset_key(namespace: str, name: str) -> str:
    """`"jobset:namespace/name"`, a JobSet's id in the engine, from valid parts."""
    return JOBSET_PREFIX + job_key(namespace, name)


def parse_jobset_key(key: str) -> tuple[str, str]:
    """`"jobset:namespace/name"` -> (namespace, name), each valid; raises `InvalidNameError`."""
    return _parse_prefixed(key, JOBSET_PREFIX, "JobSet")


def trainjob_key(namespace: str, name: str) -> str:
    """`"trainjob:namespace/name"`, a Kubeflow TrainJob's id in the engine."""
    return TRAINJOB_PREFIX + job_key(namespace, name)


def parse_trainjob_key(key: str) -> tuple[str, str]:
    """`"trainjob:namespace/name"` -> (namespace, name); raises `InvalidNameError`."""
    return _parse_prefixed(key, TRAINJOB_PREFIX, "TrainJob")


def _parse_prefixed(key: str, prefix: str, kind: str) -> tuple[str, str]:
    if not isinstance(key, str) or not key.startswith(prefix):
        raise InvalidNameError(f"not a {kind}'s id: {_show(key)} must be "
                               f"'{prefix}namespace/name'")  # fmt: skip
    return parse_job_key(key.removeprefix(prefix))


def _subdomain(name: str, what: str) -> str:
    if (
        not isinstance(name, str)
        or len(name) > MAX_SUBDOMAIN
        or not DNS1123_SUBDOMAIN.fullmatch(name)
    ):
        raise InvalidNameError(f"not a valid {what}: {_show(name)} must be {_SUBDOMAIN_RULE}")
    return name


def _show(value: object) -> str:
    """The value for a message: quoted, and cut short (a name may be arbitrarily long)."""
    text = repr(value)
    return text if len(text) <= 80 else f"{text[:77]}..."
