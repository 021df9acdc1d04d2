# C types for scorer/refrain.py's line comparisons when Cython compiles it (scorer/build_ext.py): the
# source stays plain Python and runs as it is without Cython. Keys are str (letters_only's and
# Line.key's), so indexing one is a character and its length a C integer; the float threshold is the
# same double the source computes (tests/test_scorer_compiled.py checks the bits).
import cython

@cython.locals(la=cython.Py_ssize_t, lb=cython.Py_ssize_t, n=cython.Py_ssize_t, p=cython.Py_ssize_t,
               q=cython.Py_ssize_t, h=cython.Py_ssize_t, need=cython.double)
cpdef bint same_line(str a, str b)

@cython.locals(la=cython.Py_ssize_t, tol=cython.Py_ssize_t, r=str, head=str, tail=str)
cpdef bint is_copy(str key, list refrains)
