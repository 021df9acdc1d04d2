"""tunifolk: tunifolk."""
