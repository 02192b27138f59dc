"""Node actions run by the node's own agent: hardware recovery's ports as orders.

`AgentNodeActions` (`actions.py`) wraps a scheduler's `SchedulerPort`: cordons, drains and
resumes stay the scheduler's, while GPU resets (and reboots, where the agent reboots the
host) become orders in the engine's order book (`controllers.orders`). `AgentDiagnostics`
(`diagnostics.py`) runs DCGM diagnostics, and collects a bundle, the same way. The agent pulls
its node's orders over the engine's HTTP API and reports how each ended.
"""
