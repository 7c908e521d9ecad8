"""The bootstrap's defaults, apart so that the command line's help can say them without numpy."""

N_BOOT = 2000
"""Bootstrap replicates of an interval."""
SEED = 0
"""The bootstrap's random seed: the same seed gives the same intervals."""
