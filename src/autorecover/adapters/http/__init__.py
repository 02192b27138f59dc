"""HTTP between the parts: the agents' signal wire format and client, and the engine API client the
CLI views use.
"""
