"""``python -m analysis.cli``: the ``halluscope`` command line."""

from analysis.cli.main import main

if __name__ == "__main__":
    raise SystemExit(main())
