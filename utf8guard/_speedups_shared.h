/* What the files of utf8guard._speedups share: _speedups.c (the UTF-8 scan),
 * _speedups_http.c (the request-head proof built on it), _speedups_environ.c (a
 * WSGI environ's headers as bytes) and _speedups_lane.c (the fast lane's
 * decisions). One extension module. */
#ifndef UTF8GUARD_SPEEDUPS_SHARED_H
#define UTF8GUARD_SPEEDUPS_SHARED_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>

/* Whether the METH_FASTCALL function `name` got `want` arguments: 1, else 0 with
 * the TypeError Python raises for a wrong count set. */
static inline int speedups_arg_count(const char *name, Py_ssize_t nargs,
                                     Py_ssize_t want) {
    if (nargs == want)
        return 1;
    PyErr_Format(PyExc_TypeError, "%s expected %zd arguments, got %zd", name, want,
                 nargs);
    return 0;
}

/* _speedups.c: the refusal mask of a Policy, as first_violation reads it.
 * 0 on success, -1 with an exception set. */
int speedups_policy_mask(PyObject *policy, unsigned *mask);

/* _speedups.c: 1 when p[0:len] is valid UTF-8 under `mask` (first_violation would
 * find nothing), else 0. Holds the GIL. */
int speedups_is_valid(const uint8_t *p, size_t len, unsigned mask);

/* _speedups_http.c: speedups_is_valid under `policy`, whose mask is cached by
 * identity (16 policies): 1, 0, or -1 when the policy cannot be read. */
int speedups_policy_is_valid(const uint8_t *p, size_t n, PyObject *policy);

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

/* _speedups_http.c: py_scan_head over parts = (raw_path, app_path, query, headers),
 * policies = (path, query and body, header) and `lookalike`: 1 when clean (*found
 * filled: length and type borrowed from the headers or from found->owned, which the
 * caller releases either way), 0 when not, -1 with an exception set. */
typedef struct {
    PyObject *length, *type, *owned;
} head_scan_t;
int speedups_scan_parts(PyObject *const parts[4], PyObject *const policies[3],
                        int lookalike, head_scan_t *found);

/* _speedups_lane.c: 1 when the valid UTF-8 p[0:n] holds a code point of
 * utf8guard._pathrules.LOOKALIKE_SEPARATORS, 0 when not, -1 with an exception set. */
int speedups_has_lookalike(const uint8_t *p, size_t n);
extern const char speedups_head_plan_doc[];
extern const char speedups_asgi_plan_doc[];
extern const char speedups_whole_plain_json_doc[];
extern const char speedups_prepend_doc[];
PyObject *speedups_head_plan(PyObject *module, PyObject *const *args,
                             Py_ssize_t nargs);
PyObject *speedups_asgi_plan(PyObject *module, PyObject *const *args,
                             Py_ssize_t nargs);
PyObject *speedups_whole_plain_json(PyObject *module, PyObject *const *args,
                                    Py_ssize_t nargs);
PyObject *speedups_prepend(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

#define SPEEDUPS_LANE_METHODS                                                     \
    {"head_plan", (PyCFunction)(void (*)(void))speedups_head_plan, METH_FASTCALL,  \
     speedups_head_plan_doc},                                                      \
    {"asgi_plan", (PyCFunction)(void (*)(void))speedups_asgi_plan, METH_FASTCALL,  \
     speedups_asgi_plan_doc},                                                      \
    {"whole_plain_json", (PyCFunction)(void (*)(void))speedups_whole_plain_json,   \
     METH_FASTCALL, speedups_whole_plain_json_doc},                                \
    {"prepend", (PyCFunction)(void (*)(void))speedups_prepend, METH_FASTCALL,      \
     speedups_prepend_doc},

/* _speedups_environ.c */
extern const char speedups_environ_parts_doc[];
PyObject *speedups_environ_parts(PyObject *module, PyObject *environ);

#define SPEEDUPS_ENVIRON_METHODS                                                  \
    {"environ_parts", speedups_environ_parts, METH_O, speedups_environ_parts_doc},

#endif
