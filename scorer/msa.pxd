# C types for scorer/msa.py's scan for أ-words when Cython compiles it (scorer/build_ext.py): the source
# stays plain Python and runs as it is without Cython. The response is a str, so its characters are
# compared as C characters and positions are C integers (tests/test_scorer_compiled.py checks the bits).
import cython

@cython.locals(n=cython.Py_ssize_t, i=cython.Py_ssize_t, start=cython.Py_ssize_t, stop=cython.Py_ssize_t)
cpdef list _hamza_runs(str raw)
