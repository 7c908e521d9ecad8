"""Reading files: JSON and JSONL records with errors that say where, general harnesses' files, media paths.

Nothing here knows a benchmark; a benchmark package calls these to read its own files.
"""
