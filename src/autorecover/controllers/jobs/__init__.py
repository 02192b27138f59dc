"""Job recovery: `JobRecoveryController` (`controller`), its ports and records, and the parts of
one pass (watching, evidence, incidents, acting, following, ledger).
"""
