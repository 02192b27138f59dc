"""Hardware recovery's pure decisions: node lifecycle, policy, remediation ladder, circuit breaker,
node records.
"""
