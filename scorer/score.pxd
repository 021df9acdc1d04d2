# C types for scorer/score.py's per-hemistich passes when Cython compiles it (scorer/build_ext.py): the
# source stays plain Python and runs as it is without Cython. Counts are C integers and running sums
# C doubles: the same float operations in the same order as the source's (a double is Python's float),
# so compiled and source agree to the bit (tests/test_scorer_compiled.py). `_Seen` becomes an
# extension type, so `copy_share` reads its sets without attribute lookups.
import cython

cdef class _Seen:
    cdef public set pairs
    cdef public set bags
    cdef public dict bodies
    cdef public set whole

    @cython.locals(whole=tuple, body=tuple, share=cython.double, known=cython.Py_ssize_t, pairs=list)
    cpdef double copy_share(self, list words, bint refrain)

@cython.locals(units=cython.Py_ssize_t, total=cython.double, n=cython.Py_ssize_t, repeats=cython.double,
               rep=cython.double, hws=list, h=list, body=list, seen=set)
cpdef double _babble(list lines)

@cython.locals(seen=_Seen, total=cython.double, copied=cython.double, units=cython.Py_ssize_t,
               span=cython.double, h=list, n=cython.Py_ssize_t, body=list, worth=cython.double,
               folded=list, share=cython.double, w=str, known=cython.Py_ssize_t)
cpdef double _language_gate(list lines, bint arabizi, bint refrain)

@cython.locals(body=list, long=list, rhyming=cython.Py_ssize_t, ends=list, tails=dict, end=str, tail=str, w=str)
cpdef bint _rhyme_list(list words)

@cython.locals(near=cython.Py_ssize_t, far=cython.Py_ssize_t, last_seen=dict, i=cython.Py_ssize_t, keys=list,
               dups=cython.Py_ssize_t)
cpdef _common_penalties(poem, list lines, ends, dict pen)
