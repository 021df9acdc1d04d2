# C types for scorer/order.py's inner loop when Cython compiles it (scorer/build_ext.py): the source
# stays plain Python and runs as it is without Cython. line_gain is typed: numbers in, a double out,
# the same float operations in the same order (tests/test_scorer_compiled.py checks the bits); and the
# glue gate's loop over words (str, in a dict) with C counts.
import cython

@cython.locals(n=cython.Py_ssize_t, m=cython.Py_ssize_t, i=cython.Py_ssize_t, j=cython.Py_ssize_t,
               first=cython.Py_ssize_t, last=cython.Py_ssize_t, prev=cython.Py_ssize_t,
               c=cython.Py_ssize_t, a=cython.Py_ssize_t, base=cython.Py_ssize_t,
               actual=cython.double, expected=cython.double, pairs=cython.double)
cpdef double line_gain(list cs, double[:] table, Py_ssize_t k)

@cython.locals(total=cython.double, cs=list)
cpdef double lines_gain(list rows, double[:] table, Py_ssize_t k)

@cython.locals(seen=dict, judged=cython.Py_ssize_t, held=cython.Py_ssize_t, words=list, w=str)
cpdef double glue_gate(lines, script)
