"""Loading as one pipeline: tell files apart, read them (in worker processes), cache, index once."""
