"""VidHalluc pair validation: pair catalogue, per-clip checks as store labels, kept-pair export, previews."""
