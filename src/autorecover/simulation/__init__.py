"""A discrete-event fleet simulator that runs autorecover's own recovery code on a virtual
clock: how much GPU time becomes training progress, per policy (docs/simulation.md)."""
