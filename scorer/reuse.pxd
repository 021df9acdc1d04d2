# C types for scorer/reuse.py when Cython compiles it (scorer/build_ext.py): the source stays plain
# Python. Counts are C integers; the share is one division of two of them, as the source's int / int
# (both exact in a double), so compiled and source agree to the bit.
import cython

cpdef str _stem(str word, bint arabic)

@cython.locals(seen=dict, stem=str, w=str)
cpdef str _content(str word, str script)

@cython.locals(seen=set, out=list, seg=list, key=str, w=str, stem=str, prev=str, arabic=bint)
cpdef list content_words(list segments, str script)

@cython.locals(n=cython.Py_ssize_t, w=cython.Py_ssize_t, i=cython.Py_ssize_t, c=cython.Py_ssize_t,
               excess=cython.Py_ssize_t, total=cython.Py_ssize_t, counts=dict)
cpdef double reuse_share(list words, Py_ssize_t window=*)
