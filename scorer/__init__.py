"""tunifolk: scorer."""
