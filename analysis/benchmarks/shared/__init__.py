"""What several benchmark packages share: yes/no readers, correction helpers, media file checks.

No benchmark is named here; each package imports what it needs.
"""
