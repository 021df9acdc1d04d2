# C types for scorer/structure.py's rhyme means when Cython compiles it (scorer/build_ext.py): the source
# stays plain Python and runs as it is without Cython. Indices are C integers and the pair sum a C
# double, added in the source's order (a double is Python's float), so compiled and source agree to
# the bit (tests/test_scorer_compiled.py); called from score_strophic as C functions.
import cython

@cython.locals(n=cython.Py_ssize_t, i=cython.Py_ssize_t, j=cython.Py_ssize_t, total=cython.double)
cpdef double _pair_mean(list keys, object sim=*)

@cython.locals(values=list, row=list)
cpdef double _cross_mean(list a, list b, dict rows, object sim=*)

# score_strophic: its lists, dicts and sets typed (C-speed append, len, indexing), its counts C integers
# and its running sums C doubles, added in the source's order
@cython.locals(blocks=list, opening=list, opening_keys=list, refrain_texts=list, b0=list, rest=list, k=cython.Py_ssize_t,
               flat=list, cut=list, cur=list, copies=list, sung=list, ends=dict, closers=set, asked=dict,
               sung_keys=set, main_keys=list, stanza_groups=list, sizes=list, refrain_ok=cython.Py_ssize_t,
               refrain_extra=cython.Py_ssize_t, refrain_credit=cython.double, end_words=list, segs_all=list,
               lines_all=list, refrains=list, lines=list, flags=list, segs=list, keys=list,
               stanza_scores=list, contrasts=list, reps=list, rows=dict, rhyme_flaws=cython.Py_ssize_t,
               rhyme_lost=cython.double, internal=cython.double, contrast=cython.double, n=cython.Py_ssize_t)
cpdef score_strophic(spec, dict refs, poem, dict sub, dict pen)
