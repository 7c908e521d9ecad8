"""The ``halluscope`` command line (the top of the core): parsing, dispatch and the commands' output."""
