"""The names the command line checks before this package is imported: its id, tasks and parsers.

Read by path, without the package (``analysis.benchmarks.names``): it imports nothing, so a
mistyped ``--task`` or ``--parser`` is told at once. The package takes these names from here.
"""

NAME = "cmm"
TASKS: tuple[str, ...] = ()
TASK_REQUIRED = False
PARSERS: tuple[str, ...] = ("official", "first-word", "negation-aware")
