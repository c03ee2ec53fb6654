/* What the files of utf8guard._speedups share: _speedups.c (the UTF-8 scan),
 * _speedups_http.c (the request-head proof built on it) and _speedups_environ.c (a
 * WSGI environ's headers as bytes). One extension module. */
#ifndef UTF8GUARD_SPEEDUPS_SHARED_H
#define UTF8GUARD_SPEEDUPS_SHARED_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>

/* _speedups.c: the refusal mask of a Policy, as first_violation reads it.
 * 0 on success, -1 with an exception set. */
int speedups_policy_mask(PyObject *policy, unsigned *mask);

/* _speedups.c: 1 when p[0:len] is valid UTF-8 under `mask` (first_violation would
 * find nothing), else 0. Holds the GIL. */
int speedups_is_valid(const uint8_t *p, size_t len, unsigned mask);

/* _speedups_http.c */
extern const char speedups_scan_head_doc[];
extern const char speedups_strict_unquote_doc[];
PyObject *speedups_scan_head(PyObject *module, PyObject *const *args,
                             Py_ssize_t nargs);
PyObject *speedups_strict_unquote(PyObject *module, PyObject *raw);

/* _speedups_http.c's entries in the module's method table. */
#define SPEEDUPS_HTTP_METHODS                                                     \
    {"scan_head", (PyCFunction)(void (*)(void))speedups_scan_head, METH_FASTCALL,  \
     speedups_scan_head_doc},                                                      \
    {"strict_unquote", speedups_strict_unquote, METH_O, speedups_strict_unquote_doc},

/* _speedups_environ.c */
extern const char speedups_environ_parts_doc[];
PyObject *speedups_environ_parts(PyObject *module, PyObject *environ);

#define SPEEDUPS_ENVIRON_METHODS                                                  \
    {"environ_parts", speedups_environ_parts, METH_O, speedups_environ_parts_doc},

#endif
