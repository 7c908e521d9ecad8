"""Finding wrong gold: items ranked by how likely their recorded gold is wrong (``docs/suspects.md``)."""
