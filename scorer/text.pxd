# C types for scorer/text.py's per-line loop when Cython compiles it (scorer/build_ext.py): the source
# stays plain Python and runs as it is without Cython. The lines are str (C-speed strip, split, count
# and indexing), the lists and dicts typed, the flags C booleans and the blank-line count a C integer;
# no float is computed (tests/test_scorer_compiled.py checks the bits).
import cython

@cython.locals(dropped=dict, raw_lines=list, fences=cython.bint, markup=cython.bint, caesura=cython.bint,
               lines=list, gaps=list, marks=list, in_fence=cython.bint, credit=cython.bint,
               gap=cython.Py_ssize_t, last_raw=str, prev_raw=str, again=dict, raw=str, st=str, s=str,
               cleaned=cython.bint, parts=list, hemi_words=list, words=list, key=str, long_hemi=cython.bint,
               part=str, tail=str, titled=cython.bint, blocks=list, joined=str)
cpdef parse_poem(text)
