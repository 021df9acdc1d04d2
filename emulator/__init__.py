"""tunifolk: emulator."""
