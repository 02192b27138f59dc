"""The local scheduler: real training processes on simulated nodes, for the demonstration
(`serve --scheduler local`); both ports in `scheduler.py`, the engine's view in `stack.py`.
"""
