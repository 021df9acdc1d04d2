"""tunifolk: components."""
