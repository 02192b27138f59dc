"""Tests of what deploy/ ships: the Helm chart, rendered with a real helm."""
