"""`python -m autorecover`: the `autorecover` command, where the console script is not on PATH."""

from autorecover.cli.main import main

if __name__ == "__main__":
    main(prog_name="autorecover")
