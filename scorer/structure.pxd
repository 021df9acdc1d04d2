# C types for scorer/structure.py's rhyme means when Cython compiles it (scorer/build_ext.py): the source
# stays plain Python and runs as it is without Cython. Indices are C integers and the pair sum a C
# double, added in the source's order (a double is Python's float), so compiled and source agree to
# the bit (tests/test_scorer_compiled.py); called from score_strophic as C functions.
import cython

@cython.locals(n=cython.Py_ssize_t, i=cython.Py_ssize_t, j=cython.Py_ssize_t, total=cython.double)
cpdef double _pair_mean(list keys, object sim=*)

@cython.locals(values=list, row=list)
cpdef double _cross_mean(list a, list b, dict rows, object sim=*)
