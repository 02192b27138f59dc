"""Names and texts are validated before any command: shell metacharacters never pass."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autorecover.adapters.slurm import names
from autorecover.adapters.slurm.names import InvalidNameError

SHELL = set(";|&$`'\"\\<>*?!{}~\n\r\t\0=") | {"$(", "${"}
_meta = st.sampled_from(sorted(SHELL))


@pytest.mark.parametrize("good", ["gpu01", "node-1.rack2", "a", "GPU_7", "h100x8-017"])
def test_slurm_plain_node_names_pass(good: str) -> None:
    assert names.node_name(good) == good


@pytest.mark.parametrize("bad", ["", "-gpu01", "gpu01 ", "gpu[01-02]", "gpu01,gpu02", "a/b",
                                 "gpu01;reboot", "$(id)", "x" * 65])  # fmt: skip
def test_slurm_other_node_names_are_refused(bad: str) -> None:
    with pytest.raises(InvalidNameError):
        names.node_name(bad)


@given(st.text(max_size=20), _meta, st.text(max_size=20))
def test_slurm_shell_metacharacters_never_pass(head: str, meta: str, tail: str) -> None:
    value = head + meta + tail
    for check in (names.node_name, names.job_id, names.text):
        with pytest.raises(InvalidNameError):
            check(value)


@given(st.text(max_size=300))
def test_slurm_cleaned_text_always_passes(raw: str) -> None:
    cleaned = names.clean_text(raw)
    assert names.text(cleaned) == cleaned
    assert not set(cleaned) & {c for c in SHELL if len(c) == 1}


@pytest.mark.parametrize("good", ["1", "42", 4242, "9999999999"])
def test_slurm_job_ids(good: str | int) -> None:
    assert names.job_id(good) == str(good)


@pytest.mark.parametrize("bad", ["0", "01", "-1", "1_2", "1+0", "12345678901", True, 1.5, ""])
def test_slurm_other_job_ids_are_refused(bad: object) -> None:
    with pytest.raises(InvalidNameError):
        names.job_id(bad)  # type: ignore[arg-type]
