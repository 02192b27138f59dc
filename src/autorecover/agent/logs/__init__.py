"""The agent's side of job output: containers' logs read on the node, condensed, shipped."""
