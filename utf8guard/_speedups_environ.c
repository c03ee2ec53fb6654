/* utf8guard._speedups.environ_parts: a WSGI environ's request head as bytes.
 *
 * The compiled form of utf8guard.middleware.adapter._wsgi_environ's translation, for the
 * common environ only: a dict whose keys are ASCII str and whose head values are
 * str of code points up to U+00FF (PEP 3333: one code point per byte). Anything
 * else answers None, and the caller takes the Python translation, which handles it.
 *
 * The answer is (raw_path, app_path, query, headers). raw_path is the path of the
 * target (target_path), which is RAW_URI's bytes, or REQUEST_URI's when RAW_URI
 * gives none (None when neither does); app_path is SCRIPT_NAME's then PATH_INFO's;
 * query QUERY_STRING's; a key that is missing or holds no str gives b"" (latin1()).
 * headers: for each (key, value) in insertion order, a key "HTTP_<X>" whose value
 * is a str,
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

/* The head's keys, interned once: a lookup then costs no new str. */
enum head_key { RAW_URI, REQUEST_URI, SCRIPT_NAME, PATH_INFO, QUERY_STRING, KEYS };
static const char *const key_names[KEYS] = {"RAW_URI", "REQUEST_URI", "SCRIPT_NAME",
                                            "PATH_INFO", "QUERY_STRING"};
static PyObject *keys[KEYS];
/* Header name of each key seen (str -> bytes): servers send the same few keys. It
 * stops growing at NAMES_CACHED entries, so odd keys cannot grow it without end. */
static PyObject *names;
#define NAMES_CACHED 256

static int init_keys(void) {
    if (names != NULL)
        return 0;
    for (int i = 0; i < KEYS; i++) {
        keys[i] = PyUnicode_InternFromString(key_names[i]);
        if (keys[i] == NULL)
            return -1;
    }
    names = PyDict_New();
    return names == NULL ? -1 : 0;
}

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

/* The header name of `key` (its `length` bytes at `text`, `skip` of them the
 * prefix), from the cache or made and cached; a new reference, NULL on error. */
static PyObject *cached_name(PyObject *key, const char *text, Py_ssize_t length,
                             Py_ssize_t skip) {
    PyObject *name = PyDict_GetItemWithError(names, key);
    if (name != NULL) {
        Py_INCREF(name);
        return name;
    }
    if (PyErr_Occurred())
        return NULL;
    name = field_name(text + skip, length - skip);
    if (name != NULL && PyDict_GET_SIZE(names) < NAMES_CACHED &&
        PyDict_SetItem(names, key, name) < 0)
        Py_CLEAR(name);
    return name;
}

/* Append (name, value) for one header to `pairs`; -1 with an exception on failure. */
static int append_pair(PyObject *pairs, PyObject *name, PyObject *value) {
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

/* The bytes of environ[key] (latin1()): b"" unless a str; NULL with *python set
 * when the str has a code point over U+00FF, NULL alone on an error. */
static PyObject *latin1(PyObject *environ, enum head_key key, int *python) {
    PyObject *value = PyDict_GetItemWithError(environ, keys[key]); /* borrowed */
    if (value == NULL && PyErr_Occurred())
        return NULL;
    if (value == NULL || !PyUnicode_Check(value))
        return PyBytes_FromStringAndSize(NULL, 0);
    if (!STR_READY(value))
        return NULL;
    if (PyUnicode_KIND(value) != PyUnicode_1BYTE_KIND) {
        *python = 1;
        return NULL;
    }
    return PyBytes_FromStringAndSize((const char *)PyUnicode_1BYTE_DATA(value),
                                     PyUnicode_GET_LENGTH(value));
}

/* The header pairs, or NULL with *python set (left to Python) or an error. */
static PyObject *header_pairs(PyObject *environ, int *python) {
    PyObject *pairs = PyList_New(0);
    if (pairs == NULL)
        return NULL;
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(environ, &pos, &key, &value)) {
        if (!PyUnicode_CheckExact(key) || !STR_READY(key) || !PyUnicode_IS_ASCII(key)) {
            /* str.lower() of other keys is Unicode's, and a str subclass may run
             * code as it is hashed or sliced: Python's. */
            *python = 1;
            break;
        }
        const char *text = (const char *)PyUnicode_1BYTE_DATA(key);
        Py_ssize_t length = PyUnicode_GET_LENGTH(key);
        int http = length >= 5 && memcmp(text, "HTTP_", 5) == 0;
        if (!PyUnicode_Check(value))
            continue;
        if (!http && (PyUnicode_GET_LENGTH(value) == 0 ||
                      !(key_is(text, length, "CONTENT_TYPE") ||
                        key_is(text, length, "CONTENT_LENGTH"))))
            continue;
        if (!STR_READY(value) || PyUnicode_KIND(value) != PyUnicode_1BYTE_KIND) {
            *python = 1; /* a code point over U+00FF breaks PEP 3333: Python's */
            break;
        }
        if (append_pair(pairs, cached_name(key, text, length, http ? 5 : 0), value) < 0)
            break;
    }
    if (*python || PyErr_Occurred())
        Py_CLEAR(pairs);
    return pairs;
}

/* RFC 3986 section 3.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ). */
static int scheme_char(unsigned char c, int first) {
    int alpha = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
    return alpha ||
           (!first && ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'));
}

/* The path of a request target and its fragment, as _wsgi_environ._target_path
 * takes them: after an absolute-form's "scheme://authority" (RFC 9112 section
 * 3.2.2), up to the first "?" before the first "#", then from that "#" to the end
 * (RFC 3986 section 3.5; a target has no fragment, RFC 9112 section 3.2, but one
 * sent stays in RAW_URI, so its bytes get the path's rules). None for an empty
 * target; a new reference. */
static PyObject *target_path(PyObject *target) {
    const char *p = PyBytes_AS_STRING(target);
    Py_ssize_t n = PyBytes_GET_SIZE(target), start = 0, end;
    if (n == 0)
        Py_RETURN_NONE;
    if (p[0] != '/') {
        Py_ssize_t i = 0;
        while (i < n && scheme_char((unsigned char)p[i], i == 0))
            i++;
        if (i > 0 && n - i >= 3 && memcmp(p + i, "://", 3) == 0) {
            i += 3;
            while (i < n && p[i] != '/' && p[i] != '?' && p[i] != '#')
                i++;
            start = i;
        }
    }
    /* The fragment runs from the first "#" to the end (RFC 3986 section 3.5). */
    const char *hash = memchr(p + start, '#', (size_t)(n - start));
    Py_ssize_t fragment = hash == NULL ? n : hash - p;
    for (end = start; end < fragment && p[end] != '?'; end++)
        ;
    if (end == fragment) {
        /* No query: the path and any fragment, contiguous. */
        if (start == 0)
            return Py_NewRef(target);
        return PyBytes_FromStringAndSize(p + start, n - start);
    }
    /* A query before the end or the fragment: the path, then the fragment. */
    PyObject *result = PyBytes_FromStringAndSize(NULL, (end - start) + (n - fragment));
    if (result == NULL)
        return NULL;
    char *out = PyBytes_AS_STRING(result);
    memcpy(out, p + start, (size_t)(end - start));
    memcpy(out + (end - start), p + fragment, (size_t)(n - fragment));
    return result;
}

const char speedups_environ_parts_doc[] =
    "environ_parts(environ, /)\n--\n\n"
    "(raw_path, app_path, query, headers) of a WSGI environ as bytes, or None when "
    "the environ needs the Python translation.";

PyObject *speedups_environ_parts(PyObject *module, PyObject *environ) {
    (void)module;
    if (!PyDict_CheckExact(environ))
        Py_RETURN_NONE;
    if (init_keys() < 0)
        return NULL;
    int python = 0;
    PyObject *target = NULL, *script = NULL, *info = NULL, *app_path = NULL;
    PyObject *query = NULL, *headers = NULL, *result = NULL;
    target = latin1(environ, RAW_URI, &python);
    if (target != NULL && PyBytes_GET_SIZE(target) == 0) {
        Py_SETREF(target, latin1(environ, REQUEST_URI, &python));
    }
    if (target == NULL || (script = latin1(environ, SCRIPT_NAME, &python)) == NULL ||
        (info = latin1(environ, PATH_INFO, &python)) == NULL ||
        (query = latin1(environ, QUERY_STRING, &python)) == NULL ||
        (headers = header_pairs(environ, &python)) == NULL)
        goto done;
    app_path = PyBytes_FromStringAndSize(NULL, PyBytes_GET_SIZE(script) +
                                                   PyBytes_GET_SIZE(info));
    if (app_path == NULL)
        goto done;
    memcpy(PyBytes_AS_STRING(app_path), PyBytes_AS_STRING(script),
           (size_t)PyBytes_GET_SIZE(script));
    memcpy(PyBytes_AS_STRING(app_path) + PyBytes_GET_SIZE(script),
           PyBytes_AS_STRING(info), (size_t)PyBytes_GET_SIZE(info));
    PyObject *path = target_path(target);
    if (path != NULL)
        result = PyTuple_Pack(4, path, app_path, query, headers);
    Py_XDECREF(path);
done:
    Py_XDECREF(target);
    Py_XDECREF(script);
    Py_XDECREF(info);
    Py_XDECREF(app_path);
    Py_XDECREF(query);
    Py_XDECREF(headers);
    if (result == NULL && python && !PyErr_Occurred())
        Py_RETURN_NONE;
    return result;
}
