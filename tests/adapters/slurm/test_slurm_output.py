"""Following output files: appends, unfinished lines, truncation, replacement; patterns."""

from __future__ import annotations

from pathlib import Path

from autorecover.adapters.slurm.output import OutputFollower, output_glob


def test_slurm_follower_reads_whole_lines_as_they_come(tmp_path: Path) -> None:
    path = tmp_path / "out.txt"
    follow = OutputFollower(path)
    assert follow.read() == []  # not there yet
    path.write_bytes(b"0: step 1\n0: st")
    assert follow.read() == [b"0: step 1"]
    with path.open("ab") as f:
        f.write(b"ep 2\n1: step 2\n")
    assert follow.read() == [b"0: step 2", b"1: step 2"]
    assert follow.read() == []


def test_slurm_follower_starts_over_on_truncation_and_replacement(tmp_path: Path) -> None:
    path = tmp_path / "out.txt"
    path.write_bytes(b"attempt 1\nmore of attempt 1\n")
    follow = OutputFollower(path)
    assert len(follow.read()) == 2
    path.write_bytes(b"attempt 2\n")  # a requeue without --open-mode=append truncates
    assert follow.read() == [b"attempt 2"] and follow.truncations == 1
    new = tmp_path / "new.txt"
    new.write_bytes(b"replaced\n")
    new.replace(path)
    assert follow.read() == [b"replaced"]


def test_slurm_output_globs() -> None:
    assert output_glob("/o/run-42-%N-%t.out") == "/o/run-42-*-*.out"
    assert output_glob("/o/[x]-%2t.out") == "/o/[[]x]-*.out"
    assert output_glob("/o/a%%b") == "/o/a%b"
