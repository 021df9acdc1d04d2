"""tunifolk: providers."""
