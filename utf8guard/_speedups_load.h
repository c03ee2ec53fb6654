/* Reading a Python table into C: the one loader every file of utf8guard._speedups
 * uses to take a rule's bytes, names or ranges from its Python home (at import, or
 * at a lane's first call) instead of restating them.
 *
 * A loader reads with speedups_table, checks what it read, and ends with
 * speedups_table_failed on any failure: the caller then sees one RuntimeError that
 * names the table, chained from what went wrong (ImportError, AttributeError, the
 * loader's TypeError or ValueError), never a crash, a SystemError, or a table half
 * read and used. On success no exception is left set. */
#ifndef UTF8GUARD_SPEEDUPS_LOAD_H
#define UTF8GUARD_SPEEDUPS_LOAD_H

#include "_speedups_shared.h"

#include <string.h>

/* A loader runs once: kept out of line, its code stays out of its hot callers'
 * (Py_NO_INLINE, which Python 3.10 lacks). */
#if defined(__GNUC__) || defined(__clang__)
#define SPEEDUPS_LOADER __attribute__((noinline)) static
#elif defined(_MSC_VER)
#define SPEEDUPS_LOADER __declspec(noinline) static
#else
#define SPEEDUPS_LOADER static
#endif

/* module.name as a new reference, or NULL with an exception set (at once, reading
 * nothing, when one is already set: a loader may read several and check once). */
static inline PyObject *speedups_table(const char *module, const char *name) {
    if (PyErr_Occurred())
        return NULL;
    PyObject *found = PyImport_ImportModule(module);
    if (found != NULL)
        Py_SETREF(found, PyObject_GetAttrString(found, name));
    return found;
}

/* The exception set, normalized, taken out of the error indicator (or NULL). */
static inline PyObject *speedups_take_exception(void) {
#if PY_VERSION_HEX >= 0x030C0000
    return PyErr_GetRaisedException();
#else
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    if (type == NULL)
        return NULL;
    PyErr_NormalizeException(&type, &value, &traceback);
    if (traceback != NULL)
        PyException_SetTraceback(value, traceback);
    Py_DECREF(type);
    Py_XDECREF(traceback);
    return value;
#endif
}

/* After a failed read of `names` (the tables, comma-separated) from `module`: a
 * RuntimeError naming them, whose cause is the exception set (a RuntimeError with
 * no cause when none is). -1. */
static inline int speedups_table_failed(const char *module, const char *names) {
    PyObject *cause = speedups_take_exception();
    if (cause == NULL) {
        PyErr_Format(PyExc_RuntimeError, "utf8guard._speedups cannot read %s from %s",
                     names, module);
        return -1;
    }
    PyErr_Format(PyExc_RuntimeError, "utf8guard._speedups cannot read %s from %s (%s: %S)",
                 names, module, Py_TYPE(cause)->tp_name, cause);
    PyObject *error = speedups_take_exception();
    if (error != NULL)
        PyException_SetCause(error, cause); /* steals cause */
    else
        Py_DECREF(cause);
#if PY_VERSION_HEX >= 0x030C0000
    PyErr_SetRaisedException(error);
#else
    if (error != NULL)
        PyErr_Restore(Py_NewRef((PyObject *)Py_TYPE(error)), error,
                      PyException_GetTraceback(error));
#endif
    return -1;
}

/* set[b] = 1 for each byte of `chars`, which must be exact bytes (each byte, or
 * with one_byte_items a tuple of one-byte bytes); 0, or -1 with TypeError set
 * ("<what> must be ..."). The set is cleared first, so a failed read leaves none. */
static inline int speedups_byte_set(uint8_t set[256], PyObject *chars,
                                    int one_byte_items, const char *what) {
    memset(set, 0, 256);
    if (!one_byte_items && PyBytes_CheckExact(chars)) {
        for (Py_ssize_t i = 0; i < PyBytes_GET_SIZE(chars); i++)
            set[(uint8_t)PyBytes_AS_STRING(chars)[i]] = 1;
        return 0;
    }
    int ok = one_byte_items && PyTuple_CheckExact(chars);
    for (Py_ssize_t i = 0; ok && i < PyTuple_GET_SIZE(chars); i++) {
        PyObject *item = PyTuple_GET_ITEM(chars, i);
        ok = PyBytes_CheckExact(item) && PyBytes_GET_SIZE(item) == 1;
        if (ok)
            set[(uint8_t)PyBytes_AS_STRING(item)[0]] = 1;
    }
    if (!ok) {
        memset(set, 0, 256);
        PyErr_Format(PyExc_TypeError, "%s must be %s", what,
                     one_byte_items ? "a tuple of single bytes" : "bytes");
    }
    return ok ? 0 : -1;
}

/* 0 when `items` is a tuple of non-empty exact bytes, else -1 with TypeError
 * `message` set. */
static inline int speedups_bytes_tuple(PyObject *items, const char *message) {
    int ok = PyTuple_CheckExact(items);
    for (Py_ssize_t i = 0; ok && i < PyTuple_GET_SIZE(items); i++) {
        PyObject *item = PyTuple_GET_ITEM(items, i);
        ok = PyBytes_CheckExact(item) && PyBytes_GET_SIZE(item) > 0;
    }
    if (!ok)
        PyErr_SetString(PyExc_TypeError, message);
    return ok ? 0 : -1;
}

#endif
