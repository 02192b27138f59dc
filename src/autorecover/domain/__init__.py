"""Records, knowledge catalog and attribution: pure decisions, no I/O."""
