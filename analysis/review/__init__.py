"""Review: the one corrected view, the one access policy, and pair validation over the store."""
