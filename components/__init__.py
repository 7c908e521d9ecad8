"""Gradio parts of the halluscope app: thin adapters over ``analysis``."""
