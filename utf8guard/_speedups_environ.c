/* utf8guard._speedups.environ_headers: a WSGI environ's request headers as bytes.
 *
 * The compiled form of utf8guard.middleware.wsgi's header translation, for the
 * common environ only: a dict whose header keys are ASCII str and whose values are
 * str of code points up to U+00FF (PEP 3333: one code point per byte). Anything
 * else answers None, and the caller takes the Python translation, which handles it.
 *
 * For each (key, value) in insertion order: a key "HTTP_<X>" whose value is a str,
 * and CONTENT_TYPE or CONTENT_LENGTH when the value is a non-empty str (CGI/1.1,
 * RFC 3875 section 4.1.3: an empty CONTENT_TYPE means no such header), gives the
 * pair (name, value): name is <X> (or the CGI key) with "_" as "-" in ASCII lower
 * case, value the str's bytes as Latin-1.
 */
#include "_speedups_shared.h"

#include <string.h>

/* Before 3.12 a str may still be in PEP 393's legacy form; from 3.12 none is, and
 * PyUnicode_READY is deprecated. */
#if PY_VERSION_HEX < 0x030C0000
#define STR_READY(op) (PyUnicode_READY(op) == 0)
#else
#define STR_READY(op) 1
#endif

/* Whether the ASCII str `key` (of `length` bytes at `text`) is `name`. */
static int key_is(const char *text, Py_ssize_t length, const char *name) {
    size_t size = strlen(name);
    return (size_t)length == size && memcmp(text, name, size) == 0;
}

/* The header name a key gives: `text` without its prefix, "_" -> "-", lower case. */
static PyObject *field_name(const char *text, Py_ssize_t length) {
    PyObject *name = PyBytes_FromStringAndSize(NULL, length);
    if (name == NULL)
        return NULL;
    char *out = PyBytes_AS_STRING(name);
    for (Py_ssize_t i = 0; i < length; i++) {
        char c = text[i];
        out[i] = c == '_' ? '-' : (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
    }
    return name;
}

/* Append (name, value) for one header to `pairs`; -1 with an exception on failure. */
static int append_pair(PyObject *pairs, const char *text, Py_ssize_t length,
                       PyObject *value) {
    PyObject *name = field_name(text, length);
    PyObject *raw = name == NULL ? NULL
                                 : PyBytes_FromStringAndSize(
                                       (const char *)PyUnicode_1BYTE_DATA(value),
                                       PyUnicode_GET_LENGTH(value));
    PyObject *pair = raw == NULL ? NULL : PyTuple_Pack(2, name, raw);
    int status = pair == NULL ? -1 : PyList_Append(pairs, pair);
    Py_XDECREF(name);
    Py_XDECREF(raw);
    Py_XDECREF(pair);
    return status;
}

const char speedups_environ_headers_doc[] =
    "environ_headers(environ, /)\n--\n\n"
    "[(name, value), ...] of a WSGI environ's headers as bytes, or None when the "
    "environ needs the Python translation.";

PyObject *speedups_environ_headers(PyObject *module, PyObject *environ) {
    (void)module;
    if (!PyDict_CheckExact(environ))
        Py_RETURN_NONE;
    PyObject *pairs = PyList_New(0);
    if (pairs == NULL)
        return NULL;
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(environ, &pos, &key, &value)) {
        if (!PyUnicode_Check(key) || !STR_READY(key) ||
            !PyUnicode_IS_ASCII(key))
            goto python; /* str.lower() of other keys is Unicode's: Python's */
        const char *text = (const char *)PyUnicode_1BYTE_DATA(key);
        Py_ssize_t length = PyUnicode_GET_LENGTH(key);
        int http = length >= 5 && memcmp(text, "HTTP_", 5) == 0;
        if (!PyUnicode_Check(value))
            continue;
        if (!http && (PyUnicode_GET_LENGTH(value) == 0 ||
                      !(key_is(text, length, "CONTENT_TYPE") ||
                        key_is(text, length, "CONTENT_LENGTH"))))
            continue;
        if (!STR_READY(value) || PyUnicode_KIND(value) != PyUnicode_1BYTE_KIND)
            goto python; /* a code point over U+00FF breaks PEP 3333: Python's */
        Py_ssize_t skip = http ? 5 : 0;
        if (append_pair(pairs, text + skip, length - skip, value) < 0) {
            Py_DECREF(pairs);
            return NULL;
        }
    }
    return pairs;
python:
    Py_DECREF(pairs);
    Py_RETURN_NONE;
}
