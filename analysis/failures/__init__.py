"""Where and why a model fails: significant failure slices, and two runs compared item by item."""
