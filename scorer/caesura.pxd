# C types for scorer/caesura.py's word scan when Cython compiles it (scorer/build_ext.py): the source
# stays plain Python and runs as it is without Cython. A word is a str, so its first character is a
# C character and its category a C call (tests/test_scorer_compiled.py checks the bits).
import cython

@cython.locals(word=str, c=cython.Py_UCS4)
cpdef bint _may_hold_a_run(text)
