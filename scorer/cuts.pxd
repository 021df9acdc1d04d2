# C types for scorer/cuts.py when Cython compiles it (scorer/build_ext.py): the source stays plain
# Python. Counts are C integers; the share is one division of two of them, as the source's int / int
# (both exact in a double), so compiled and source agree to the bit.
import cython

@cython.locals(words=cython.Py_ssize_t, cut=cython.Py_ssize_t, n=cython.Py_ssize_t,
               i=cython.Py_ssize_t, ws=list, a=str, b=str, known_a=bint, known_b=bint,
               free=cython.double, zero=cython.double)
cpdef double cut_gate(list lines, word)
