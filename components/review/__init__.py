"""The review feature: relabel panel, review tab, blind mode, queues and exports, span picker."""
