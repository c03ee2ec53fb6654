/* utf8guard._speedups.environ_parts: a WSGI environ's request head as bytes.
 *
 * The compiled form of utf8guard.middleware.adapter._wsgi_environ's translation, for the
 * common environ only: a dict whose keys are ASCII str and whose head values are
 * str of code points up to U+00FF (PEP 3333: one code point per byte). Anything
 * else answers None, and the caller takes the Python translation, which handles it.
 *
 * Which keys hold what is Python's, read here, not restated: _wsgi_environ.ENVIRON_KEYS
 * (the target, app path and query keys) and TARGET_DELIMITERS (where target_path
 * splits a target) at the first call, and for each key not met before,
 * _wsgi_environ.header_field(key) (the header it carries: its name and the value
 * that means none, CGI/1.1; or None), remembered; and any target but the plain
 * origin-form goes to _wsgi_environ.target_path.
 *
 * Which types are read here is C's plumbing, not a rule: only an exact dict and
 * exact str keys and values, whose contents C reads without running Python code.
 * Any other type (a subclass too, which may hash, compare or encode as it likes) is
 * handed back, whole, to _wsgi_environ.py_environ_parts, whose _str_bytes and
 * _headers decide what it means; so the answer cannot depend on the build.
 *
 * The answer is (raw_path, app_path, query, headers). raw_path is the path of the
 * target (target_path): raw_target's bytes, or other_raw_target's when raw_target
 * gives none (None when neither does); app_path is script_name's then path_info's;
 * query query's; a key that is missing or holds no str gives b"" (latin1()). headers: for each (key,
 * value) in insertion order whose value is a str and whose key carries a header
 * (not when the value is the field's absent value), the pair (name, value): value
 * the str's bytes as Latin-1.
 */
#include "_speedups_load.h"

#include <string.h>

/* Before 3.12 a str may still be in PEP 393's legacy form; from 3.12 none is, and
 * PyUnicode_READY is deprecated. */
#if PY_VERSION_HEX < 0x030C0000
#define STR_READY(op) (PyUnicode_READY(op) == 0)
#else
#define STR_READY(op) 1
#endif

/* ENVIRON_KEYS, in its order. */
enum head_key { RAW_TARGET, OTHER_RAW_TARGET, SCRIPT_NAME, PATH_INFO, QUERY, KEYS };
static PyObject *keys[KEYS];
/* _wsgi_environ.header_field, and its answers by key (str -> HeaderField or None):
 * servers send the same few keys. It stops growing at FIELDS_CACHED entries, so odd
 * keys cannot grow it without end. */
static PyObject *header_field, *fields;
/* _wsgi_environ.target_path, for the targets it alone reads. */
static PyObject *python_target_path;
#define FIELDS_CACHED 256
/* The last environ's keys and their fields, by position (strong references): a
 * server builds its fixed keys once, so most keys are the very objects met before
 * at the same place, and a pointer comparison then saves the cache's lookup. */
#define MEMO_KEYS 64
static PyObject *memo_key[MEMO_KEYS], *memo_field[MEMO_KEYS];

/* TARGET_DELIMITERS, in its order: where target_path splits a target. */
enum delimiter { D_PATH, D_QUERY, D_FRAGMENT, DELIMITERS };
static char delimiters[DELIMITERS];

#define ENVIRON "utf8guard.middleware.adapter._wsgi_environ"

/* An EnvironKeys of str into keys; 0, or -1 with TypeError set. */
static int read_keys(PyObject *table) {
    int ok = PyTuple_Check(table) && PyTuple_GET_SIZE(table) == KEYS;
    for (int i = 0; ok && i < KEYS; i++)
        ok = PyUnicode_CheckExact(PyTuple_GET_ITEM(table, i));
    if (!ok) {
        PyErr_SetString(PyExc_TypeError, "ENVIRON_KEYS must be an EnvironKeys of str");
        return -1;
    }
    for (int i = 0; i < KEYS; i++)
        Py_XSETREF(keys[i], Py_NewRef(PyTuple_GET_ITEM(table, i)));
    return 0;
}

/* A TargetDelimiters of ints 0..255 into delimiters; 0, or -1 with TypeError set. */
static int read_delimiters(PyObject *table) {
    int ok = PyTuple_Check(table) && PyTuple_GET_SIZE(table) == DELIMITERS;
    for (int i = 0; ok && i < DELIMITERS; i++) {
        PyObject *item = PyTuple_GET_ITEM(table, i);
        long byte = PyLong_CheckExact(item) ? PyLong_AsLong(item) : -1;
        ok = byte >= 0 && byte <= 0xFF;
        delimiters[i] = (char)byte;
    }
    if (!ok) {
        PyErr_Clear();
        PyErr_SetString(PyExc_TypeError,
                        "TARGET_DELIMITERS must be a TargetDelimiters of bytes as int");
    }
    return ok ? 0 : -1;
}

/* Reads ENVIRON_KEYS, TARGET_DELIMITERS, header_field and target_path (once: fields
 * is set last); -1 with an exception set on failure. */
SPEEDUPS_LOADER int load_environ_table(void) {
    PyObject *table = speedups_table(ENVIRON, "ENVIRON_KEYS");
    PyObject *splits = speedups_table(ENVIRON, "TARGET_DELIMITERS");
    PyObject *function = speedups_table(ENVIRON, "header_field");
    PyObject *paths = speedups_table(ENVIRON, "target_path");
    int rc = paths != NULL && read_keys(table) == 0 && read_delimiters(splits) == 0 &&
                     (fields = PyDict_New()) != NULL
                 ? 0
                 : -1;
    if (rc == 0) {
        Py_XSETREF(header_field, Py_NewRef(function));
        Py_XSETREF(python_target_path, Py_NewRef(paths));
    }
    Py_XDECREF(table);
    Py_XDECREF(splits);
    Py_XDECREF(function);
    Py_XDECREF(paths);
    return rc < 0 ? speedups_table_failed(ENVIRON, "ENVIRON_KEYS, TARGET_DELIMITERS, "
                                                   "header_field, target_path")
                  : 0;
}

/* header_field(key), from the cache or asked and cached: a HeaderField (bytes,
 * and an exact str or None) or Py_None; a new reference, NULL on error. */
static PyObject *field_of(PyObject *key) {
    PyObject *field = PyDict_GetItemWithError(fields, key);
    if (field != NULL)
        return Py_NewRef(field);
    if (PyErr_Occurred())
        return NULL;
    field = PyObject_CallOneArg(header_field, key);
    if (field == NULL)
        return NULL;
    if (field != Py_None &&
        !(PyTuple_Check(field) && PyTuple_GET_SIZE(field) == 2 &&
          PyBytes_CheckExact(PyTuple_GET_ITEM(field, 0)) &&
          (PyTuple_GET_ITEM(field, 1) == Py_None ||
           PyUnicode_CheckExact(PyTuple_GET_ITEM(field, 1))))) {
        PyErr_SetString(PyExc_TypeError,
                        "_wsgi_environ.header_field must give a HeaderField or None");
        Py_CLEAR(field);
    } else if (PyDict_GET_SIZE(fields) < FIELDS_CACHED &&
               PyDict_SetItem(fields, key, field) < 0) {
        Py_CLEAR(field);
    }
    return field;
}

/* field_of(key) for the key at `position` of the environ; a new reference. */
static PyObject *memo_field_of(Py_ssize_t position, PyObject *key) {
    if (position >= MEMO_KEYS)
        return field_of(key);
    if (memo_key[position] == key)
        return Py_NewRef(memo_field[position]);
    PyObject *field = field_of(key);
    if (field != NULL) {
        Py_XSETREF(memo_key[position], Py_NewRef(key));
        Py_XSETREF(memo_field[position], Py_NewRef(field));
    }
    return field;
}

/* Append (name, value) for one header to `pairs`; -1 with an exception on failure. */
static int append_pair(PyObject *pairs, PyObject *name, PyObject *value) {
    PyObject *raw = PyBytes_FromStringAndSize((const char *)PyUnicode_1BYTE_DATA(value),
                                              PyUnicode_GET_LENGTH(value));
    PyObject *pair = raw == NULL ? NULL : PyTuple_Pack(2, name, raw);
    int status = pair == NULL ? -1 : PyList_Append(pairs, pair);
    Py_XDECREF(raw);
    Py_XDECREF(pair);
    return status;
}

/* The bytes of environ[key] (latin1()): b"" unless a str; NULL with *python set
 * when the str is a subclass or has a code point over U+00FF, NULL alone on an
 * error. */
static PyObject *latin1(PyObject *environ, enum head_key key, int *python) {
    PyObject *value = PyDict_GetItemWithError(environ, keys[key]); /* borrowed */
    if (value == NULL && PyErr_Occurred())
        return NULL;
    if (value == NULL || !PyUnicode_Check(value))
        return PyBytes_FromStringAndSize(NULL, 0);
    if (!STR_READY(value))
        return NULL;
    if (!PyUnicode_CheckExact(value) || PyUnicode_KIND(value) != PyUnicode_1BYTE_KIND) {
        *python = 1;
        return NULL;
    }
    return PyBytes_FromStringAndSize((const char *)PyUnicode_1BYTE_DATA(value),
                                     PyUnicode_GET_LENGTH(value));
}

/* Whether the exact str `value` is a field's `absent` value (HeaderField.absent:
 * None, or an exact str): _headers' `value != absent`, negated. */
static int is_absent(PyObject *value, PyObject *absent) {
    return absent != Py_None &&
           PyUnicode_GET_LENGTH(value) == PyUnicode_GET_LENGTH(absent) &&
           PyUnicode_Compare(value, absent) == 0;
}

/* The header pairs, or NULL with *python set (left to Python) or an error. */
static PyObject *header_pairs(PyObject *environ, int *python) {
    PyObject *pairs = PyList_New(0);
    if (pairs == NULL)
        return NULL;
    Py_ssize_t pos = 0, position = -1;
    PyObject *key, *value;
    while (PyDict_Next(environ, &pos, &key, &value)) {
        position++;
        if (!PyUnicode_CheckExact(key) || !STR_READY(key) || !PyUnicode_IS_ASCII(key)) {
            /* A str subclass may run code as it is hashed or sliced: Python's. */
            *python = 1;
            break;
        }
        if (!PyUnicode_CheckExact(value)) {
            if (!PyUnicode_Check(value))
                continue; /* no str: no header (_headers) */
            *python = 1;  /* a str subclass may compare and encode as it likes */
            break;
        }
        PyObject *field = memo_field_of(position, key);
        if (field == NULL)
            break;
        if (field == Py_None || is_absent(value, PyTuple_GET_ITEM(field, 1))) {
            Py_DECREF(field);
            continue;
        }
        int status = 0;
        if (!STR_READY(value) || PyUnicode_KIND(value) != PyUnicode_1BYTE_KIND)
            *python = 1; /* a code point over U+00FF breaks PEP 3333: Python's */
        else
            status = append_pair(pairs, PyTuple_GET_ITEM(field, 0), value);
        Py_DECREF(field);
        if (*python || status < 0)
            break;
    }
    if (*python || PyErr_Occurred())
        Py_CLEAR(pairs);
    return pairs;
}

/* The path of a request target and any fragment sent (_wsgi_environ.target_path).
 * The origin-form without a fragment, what a server is sent nearly always, is read
 * here (RFC 9112 section 3.2.1: origin-form = absolute-path [ "?" query ]), split
 * where target_path splits it (TARGET_DELIMITERS); any other target (empty,
 * absolute-form, with a fragment) is target_path's, called. A new reference (None
 * for an empty target), NULL on error. */
static PyObject *target_path(PyObject *target) {
    const char *p = PyBytes_AS_STRING(target);
    size_t n = (size_t)PyBytes_GET_SIZE(target);
    if (n == 0 || p[0] != delimiters[D_PATH] || memchr(p, delimiters[D_FRAGMENT], n))
        return PyObject_CallOneArg(python_target_path, target);
    const char *query = memchr(p, delimiters[D_QUERY], n);
    if (query == NULL)
        return Py_NewRef(target);
    return PyBytes_FromStringAndSize(p, query - p);
}

const char speedups_environ_parts_doc[] =
    "environ_parts(environ, /)\n--\n\n"
    "(raw_path, app_path, query, headers) of a WSGI environ as bytes, or None when "
    "the environ needs the Python translation.";

PyObject *speedups_environ_parts(PyObject *module, PyObject *environ) {
    (void)module;
    if (!PyDict_CheckExact(environ))
        Py_RETURN_NONE;
    if (fields == NULL && load_environ_table() < 0)
        return NULL;
    int python = 0;
    PyObject *target = NULL, *script = NULL, *info = NULL, *app_path = NULL;
    PyObject *query = NULL, *headers = NULL, *result = NULL;
    target = latin1(environ, RAW_TARGET, &python);
    if (target != NULL && PyBytes_GET_SIZE(target) == 0) {
        Py_SETREF(target, latin1(environ, OTHER_RAW_TARGET, &python));
    }
    if (target == NULL || (script = latin1(environ, SCRIPT_NAME, &python)) == NULL ||
        (info = latin1(environ, PATH_INFO, &python)) == NULL ||
        (query = latin1(environ, QUERY, &python)) == NULL ||
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
