"""The browse tab: the item table page, the inspector, its media rendering, navigation and charts."""
