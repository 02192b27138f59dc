"""Hardware recovery: `HardwareController` (`controller`) and the ports, executor, observers and
reconciler it runs with.
"""
