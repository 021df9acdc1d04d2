"""tunifolk: scorer.

The structure reward (``scorer.score``) and the HTTP service Vertex calls (``scorer.app``), in pure
Python with the standard library: the image installs only what serves HTTP. The sources are what
runs, everywhere (docs/scorer.md, "Speed", for why no compiled build is needed).
"""
