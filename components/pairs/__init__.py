"""The pair-validation tab: handlers, media previews and the synchronised player."""
