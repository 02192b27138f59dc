"""Job recovery's pure decisions: job health, policy and per-job settings, suspicion, what to do
about a failed job.
"""
