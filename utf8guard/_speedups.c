/* utf8guard._speedups: the compiled first_violation, the seam _scan.py defines.
 *
 * Same answer as the pure-Python core for every input and policy: the first violation
 * (kind, start, end) in buf[start:end], where [start, end) is the maximal subpart for
 * ill-formed input (Unicode ch. 3, "U+FFFD Substitution of Maximal Subparts") or the
 * whole sequence of a code point the policy refuses.
 *
 * The scan itself (the exact byte scan and the filters in front of it, one per
 * instruction set) is plain C in _speedups_scan.h. This file is the Python glue: it
 * fills the scan's lead-byte table from _tables.py, proves its copies of the policy's
 * code-point sets equal to _policy.py's (check_sets: Policy's flags at import, each
 * flag's set when a policy first refuses it; a mismatch fails that call and every
 * later one that needs the set), picks the instruction set and turns results into
 * Violation objects.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "_speedups_scan.h"
#include "_speedups_load.h"

static int current_isa = 0;

/* ---------------------------------------------------------------------------------
 * Python glue.
 */
/* Inputs at least this long are scanned without the GIL. */
#define NOGIL_BYTES (1 << 15)

static PyObject *violation_type; /* utf8guard._violation.Violation */
static PyObject *kinds[K_COUNT]; /* utf8guard._violation.Kind members, in order */
static PyObject *violation_name; /* "utf8guard._violation" */
static PyObject *violation_attr; /* "Violation" */
static int load_kinds(void);
static PyObject *cached_policy;  /* last policy seen, and its refusal mask */
static unsigned cached_mask;
static PyObject *strict_policy;  /* utf8guard._policy.STRICT, is_valid's default */

/* Policy's allow_* fields, in the order of enum refuse; the set FLAGS[i] refuses has
 * Kind K_NONCHARACTER + i (both checked by check_flags and check_sets). */
static const char *const FLAGS[] = {
    "allow_noncharacters", "allow_nul",         "allow_controls",
    "allow_bidi_controls", "allow_private_use", "allow_bom",
};
#define FLAG_COUNT ((int)(sizeof FLAGS / sizeof FLAGS[0]))

static unsigned checked_sets; /* the flags whose sets check_sets proved equal */
static int check_sets(unsigned flags);

/* 1 when policy is a utf8guard.Policy (or a subclass's), 0 if not, -1 on error. */
static int is_policy(PyObject *policy) {
    if (PyObject_TypeCheck(policy, Py_TYPE(strict_policy)))
        return 1;
    /* Re-imported, utf8guard._policy holds a new Policy class (coverage.py imports a
     * --cov subpackage again; importlib.reload): the policies of the moment are its. */
    PyObject *module = PyImport_ImportModule("utf8guard._policy");
    if (module == NULL)
        return -1;
    PyObject *cls = PyObject_GetAttrString(module, "Policy");
    Py_DECREF(module);
    if (cls == NULL)
        return -1;
    int is = PyObject_IsInstance(policy, cls);
    Py_DECREF(cls);
    return is;
}

/* A policy's refusal mask; anything but a utf8guard.Policy is a TypeError, with
 * _policy.not_a_policy's text. */
static int policy_mask(PyObject *policy, unsigned *mask) {
    if (policy == cached_policy) {
        *mask = cached_mask;
        return 0;
    }
    int is = is_policy(policy);
    if (is <= 0) {
        PyObject *name = is < 0 ? NULL
                                : PyObject_GetAttrString((PyObject *)Py_TYPE(policy), "__name__");
        if (name != NULL) {
            PyErr_Format(PyExc_TypeError, "policy must be a Policy, not %U", name);
            Py_DECREF(name);
        }
        return -1;
    }
    unsigned m = 0;
    for (int i = 0; i < FLAG_COUNT; i++) {
        PyObject *value = PyObject_GetAttrString(policy, FLAGS[i]);
        if (value == NULL)
            return -1;
        int allowed = PyObject_IsTrue(value);
        Py_DECREF(value);
        if (allowed < 0)
            return -1;
        if (!allowed)
            m |= 1u << i;
    }
    /* Each set is compared with _policy.py's when a policy first refuses it: a sweep
     * over every code point (check_set) costs about 5 M instructions a set (2.3 M
     * under AVX2), about what the rest of the extension's import costs. */
    if ((m & ~checked_sets) && check_sets(m & ~checked_sets) < 0)
        return -1;
    Py_INCREF(policy);
    Py_XSETREF(cached_policy, policy);
    cached_mask = m;
    *mask = m;
    return 0;
}

/* For _speedups_http.c (declared in _speedups_shared.h). */
int speedups_policy_mask(PyObject *policy, unsigned *mask) {
    return policy_mask(policy, mask);
}

/* Inputs shorter than this (a path, a query, a header value) take the exact scan:
 * a vector kernel would read them as one padded block, and inside a server its code
 * is cold on every request, so the small exact loop is the faster of the two there
 * (bench/README.md, "Inside a server"). The exact scan is the scalar ISA's whole
 * scan, so the verdict is the same. */
#define SHORT_SCAN_BYTES 64

int speedups_is_valid(const uint8_t *p, size_t len, unsigned mask) {
    found_t f;
    size_t next;
    if (len < SHORT_SCAN_BYTES)
        return !scan_exact(p, 0, len, len, mask, &f, &next);
    return !ISAS[current_isa].scan(p, 0, len, mask, &f);
}

/* Run the current instruction set's scan over p[start:end]; without the GIL when
 * the range is long enough for another thread to make use of it. */
static int scan_range(const uint8_t *p, size_t start, size_t end, unsigned mask,
                      found_t *f) {
    scan_t scan = ISAS[current_isa].scan;
    int hit;
    if (end - start >= NOGIL_BYTES) {
        Py_BEGIN_ALLOW_THREADS;
        hit = scan(p, start, end, mask, f);
        Py_END_ALLOW_THREADS;
    } else {
        hit = scan(p, start, end, mask, f);
    }
    return hit;
}

/* Take Violation and the Kind members again if utf8guard._violation holds other
 * classes now. Importing the package again makes new classes while this module keeps
 * its statics (single-phase init is not run twice): coverage.py does it for a
 * --cov=<subpackage> source, and importlib.reload or an autoreloader can. Violations
 * of the old classes would compare unequal to the new ones, their kinds fail `is`
 * tests, and the code-point set check would find refused_ranges()' kinds unknown.
 * Checked only where a violation is built or a set checked, never on a clean scan. */
static int refresh_kinds(void) {
    /* Two dict lookups, borrowed: sys.modules, then the module's namespace. */
    PyObject *module = PyDict_GetItemWithError(PyImport_GetModuleDict(), violation_name);
    if (module == NULL && PyErr_Occurred())
        return -1;
    if (module != NULL && PyModule_Check(module)) {
        PyObject *current =
            PyDict_GetItemWithError(PyModule_GetDict(module), violation_attr);
        if (current == NULL && PyErr_Occurred())
            return -1;
        if (current != NULL && current != violation_type && load_kinds() < 0)
            return -1;
    }
    return 0;
}

/* Violation(kinds[kind], start, end), of the classes utf8guard._violation holds now. */
static PyObject *new_violation(int kind, size_t start, size_t end) {
    if (refresh_kinds() < 0)
        return NULL;
    return PyObject_CallFunction(violation_type, "Onn", kinds[kind], (Py_ssize_t)start,
                                 (Py_ssize_t)end);
}

PyDoc_STRVAR(first_violation_doc,
             "first_violation(buf, start, end, policy, /)\n--\n\n"
             "The first Violation in buf[start:end] under policy, or None.");

static PyObject *first_violation(PyObject *module, PyObject *const *args,
                                 Py_ssize_t nargs) {
    (void)module;
    if (nargs != 4) {
        PyErr_Format(PyExc_TypeError, "first_violation expected 4 arguments, got %zd",
                     nargs);
        return NULL;
    }
    Py_ssize_t start = PyLong_AsSsize_t(args[1]);
    if (start == -1 && PyErr_Occurred())
        return NULL;
    Py_ssize_t end = PyLong_AsSsize_t(args[2]);
    if (end == -1 && PyErr_Occurred())
        return NULL;
    unsigned mask;
    if (policy_mask(args[3], &mask) < 0)
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    if (start < 0 || end > view.len || start > end) {
        PyBuffer_Release(&view);
        PyErr_Format(PyExc_ValueError, "bad range [%zd, %zd) for %zd bytes", start,
                     end, view.len);
        return NULL;
    }
    found_t f;
    int hit = scan_range(view.buf, (size_t)start, (size_t)end, mask, &f);
    PyBuffer_Release(&view);
    if (!hit)
        Py_RETURN_NONE;
    return new_violation(f.kind, f.start, f.end);
}

/* Longest UTF-8 sequence (RFC 3629 §3): a stream holds at most one byte less. */
#define MAX_SEQUENCE_BYTES 4

PyDoc_STRVAR(stream_step_doc,
             "stream_step(held, chunk, policy, /)\n--\n\n"
             "One chunk of a stream: the first Violation in held + chunk, with offsets\n"
             "from held[0]; where there is none but a sequence the end of the data\n"
             "cuts short, its bytes, to hold for the next chunk; else b''.");

/* utf8guard._stream._python_step in one call. held (at most 3 bytes) is never joined
 * to the chunk: the characters that start in it are classified in a small copy with
 * the bytes that may finish them, then the chunk is scanned in place from the first
 * character boundary after them. A truncated sequence that reaches the end of the
 * data is the one violation more bytes could undo (Table 3-7: it is a prefix of a
 * well-formed sequence), so it is held, not reported. */
static PyObject *stream_step(PyObject *module, PyObject *const *args,
                             Py_ssize_t nargs) {
    (void)module;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "stream_step expected 3 arguments, got %zd",
                     nargs);
        return NULL;
    }
    if (!PyBytes_CheckExact(args[0])) {
        PyErr_Format(PyExc_TypeError, "held must be bytes, not %.100s",
                     Py_TYPE(args[0])->tp_name);
        return NULL;
    }
    if (PyBytes_GET_SIZE(args[0]) >= MAX_SEQUENCE_BYTES) {
        PyErr_Format(PyExc_ValueError, "held must be at most 3 bytes, not %zd",
                     PyBytes_GET_SIZE(args[0]));
        return NULL;
    }
    unsigned mask;
    if (policy_mask(args[2], &mask) < 0)
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(args[1], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    const uint8_t *p = view.buf;
    size_t len = (size_t)view.len;
    size_t held_len = (size_t)PyBytes_GET_SIZE(args[0]);
    /* held, then as many chunk bytes as a character starting in held can reach. */
    uint8_t data[2 * MAX_SEQUENCE_BYTES];
    size_t taken = len < MAX_SEQUENCE_BYTES - 1 ? len : MAX_SEQUENCE_BYTES - 1;
    memcpy(data, PyBytes_AS_STRING(args[0]), held_len);
    memcpy(data + held_len, p, taken);
    found_t f;
    size_t next = 0;
    int hit = held_len && scan_exact(data, 0, held_len, held_len + taken, mask, &f,
                                     &next);
    if (!hit && scan_range(p, next - held_len, len, mask, &f)) {
        hit = 1;
        f.start += held_len;
        f.end += held_len;
    }
    PyObject *result;
    if (!hit) {
        result = PyBytes_FromStringAndSize(NULL, 0);
    } else if (f.kind == K_TRUNCATED && f.end == held_len + len) {
        /* At most 3 bytes: all in data when the chunk fits there, else all in it. */
        const uint8_t *cut = taken == len ? data + f.start : p + (f.start - held_len);
        result = PyBytes_FromStringAndSize((const char *)cut,
                                           (Py_ssize_t)(f.end - f.start));
    } else {
        result = new_violation(f.kind, f.start, f.end);
    }
    PyBuffer_Release(&view);
    return result;
}

/* is_valid() for anything but bytes and bytearray: utf8guard._scan.find_violation,
 * which checks the type (str, a strided memoryview: TypeError) and flattens views,
 * exactly as the pure-Python is_valid does. Looked up on first use: _scan imports
 * this module, so it is not there yet at init. */
static PyObject *is_valid_other(PyObject *data, PyObject *policy) {
    static PyObject *find_violation; /* utf8guard._scan.find_violation */
    if (find_violation == NULL &&
        (find_violation = speedups_table("utf8guard._scan", "find_violation")) == NULL) {
        speedups_table_failed("utf8guard._scan", "find_violation");
        return NULL;
    }
    PyObject *found = PyObject_CallFunctionObjArgs(find_violation, data, policy, NULL);
    if (found == NULL)
        return NULL;
    int valid = found == Py_None;
    Py_DECREF(found);
    return PyBool_FromLong(valid);
}

/* is_valid's arguments when some are passed by keyword (or their count is wrong),
 * parsed the usual way into borrowed references; the positional call, the common
 * one, never comes here. */
static int is_valid_args(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                         PyObject **data, PyObject **policy) {
    static char *keywords[] = {"data", "policy", NULL};
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    PyObject *tuple = PyTuple_New(nargs);
    PyObject *dict = PyDict_New();
    int rc = tuple != NULL && dict != NULL ? 0 : -1;
    for (Py_ssize_t i = 0; rc == 0 && i < nargs; i++) {
        Py_INCREF(args[i]);
        PyTuple_SET_ITEM(tuple, i, args[i]);
    }
    for (Py_ssize_t i = 0; rc == 0 && i < nkw; i++)
        rc = PyDict_SetItem(dict, PyTuple_GET_ITEM(kwnames, i), args[nargs + i]);
    /* The objects stay alive after the tuple and dict go: the caller holds args. */
    if (rc == 0 && !PyArg_ParseTupleAndKeywords(tuple, dict, "O|O:is_valid", keywords,
                                                data, policy))
        rc = -1;
    Py_XDECREF(tuple);
    Py_XDECREF(dict);
    return rc;
}

/* No __text_signature__: inspect cannot show a default that is not a literal (STRICT),
 * so the signature is the docstring's first line, which help() prints as is. */
PyDoc_STRVAR(is_valid_doc,
             "is_valid(data, policy=STRICT)\n\n"
             "True when data is valid UTF-8 under policy (a utf8guard.Policy).\n\n"
             /* U+20AC as UTF-8 bytes: the execution character set may not be UTF-8 */
             ">>> is_valid(\"\xe2\x82\xac\".encode()), is_valid(b\"\\xed\\xa0\\x80\")\n"
             "(True, False)\n\n"
             "The compiled utf8guard.is_valid, with the verdicts of the pure-Python one\n"
             "(utf8guard._scan.python_is_valid): bytes and bytearray are scanned in\n"
             "this one call, other inputs go through utf8guard._scan.find_violation.\n\n"
             "Raises:\n"
             "    TypeError: data is not bytes, bytearray or memoryview.");

static PyObject *is_valid(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames) {
    (void)module;
    PyObject *data = NULL, *policy = strict_policy;
    if (kwnames == NULL && (nargs == 1 || nargs == 2)) {
        data = args[0];
        if (nargs == 2)
            policy = args[1];
    } else if (is_valid_args(args, nargs, kwnames, &data, &policy) < 0) {
        return NULL;
    }
    int is_bytes = PyBytes_CheckExact(data);
    if (!is_bytes && !PyByteArray_CheckExact(data))
        return is_valid_other(data, policy);
    unsigned mask;
    if (policy_mask(policy, &mask) < 0)
        return NULL;
    found_t f;
    int hit;
    if (is_bytes) {
        /* Immutable, and the caller's reference keeps it alive without the GIL. */
        hit = scan_range((const uint8_t *)PyBytes_AS_STRING(data), 0,
                         (size_t)PyBytes_GET_SIZE(data), mask, &f);
    } else {
        /* A bytearray: the exported buffer keeps other threads from resizing it. */
        Py_buffer view;
        if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0)
            return NULL;
        hit = scan_range(view.buf, 0, (size_t)view.len, mask, &f);
        PyBuffer_Release(&view);
    }
    return PyBool_FromLong(!hit);
}

PyDoc_STRVAR(isa_doc, "isa()\n--\n\n"
                      "The instruction set in use: scalar, sse4.1, avx2 or avx512.");

static PyObject *isa(PyObject *module, PyObject *unused) {
    (void)module;
    (void)unused;
    return PyUnicode_FromString(ISAS[current_isa].name);
}

PyDoc_STRVAR(supported_isas_doc,
             "supported_isas()\n--\n\nThe instruction sets this CPU can run, "
             "slowest first.");

static PyObject *supported_isas(PyObject *module, PyObject *unused) {
    (void)module;
    (void)unused;
    PyObject *names = PyList_New(0);
    for (int i = 0; names != NULL && i < ISA_COUNT; i++) {
        if (!isa_supported(i))
            continue;
        PyObject *name = PyUnicode_FromString(ISAS[i].name);
        if (name == NULL || PyList_Append(names, name) < 0)
            Py_CLEAR(names);
        Py_XDECREF(name);
    }
    return names;
}

PyDoc_STRVAR(set_isa_doc, "set_isa(name, /)\n--\n\n"
                          "Use another supported instruction set (for tests and "
                          "benchmarks).");

static PyObject *set_isa(PyObject *module, PyObject *name) {
    (void)module;
    const char *text = PyUnicode_AsUTF8(name);
    if (text == NULL)
        return NULL;
    for (int i = 0; i < ISA_COUNT; i++) {
        if (strcmp(ISAS[i].name, text) == 0 && isa_supported(i)) {
            current_isa = i;
            Py_RETURN_NONE;
        }
    }
    PyErr_Format(PyExc_ValueError, "instruction set %R is not supported here", name);
    return NULL;
}

static PyMethodDef methods[] = {
    {"first_violation", (PyCFunction)(void (*)(void))first_violation, METH_FASTCALL,
     first_violation_doc},
    {"is_valid", (PyCFunction)(void (*)(void))is_valid, METH_FASTCALL | METH_KEYWORDS,
     is_valid_doc},
    {"stream_step", (PyCFunction)(void (*)(void))stream_step, METH_FASTCALL,
     stream_step_doc},
    {"isa", isa, METH_NOARGS, isa_doc},
    {"supported_isas", supported_isas, METH_NOARGS, supported_isas_doc},
    {"set_isa", set_isa, METH_O, set_isa_doc},
    SPEEDUPS_HTTP_METHODS
    SPEEDUPS_ENVIRON_METHODS
    SPEEDUPS_LANE_METHODS
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "utf8guard._speedups",
    "Compiled first_violation, the scan behind utf8guard's one-shot and stream API, "
    "and is_valid, the public predicate in one call.",
    -1, methods, NULL, NULL, NULL, NULL,
};

/* Read `name` from `obj` as a C long in [lo, hi]; -1 with an exception otherwise. */
static int small_int_attr(PyObject *obj, const char *name, long lo, long hi,
                          long *out) {
    PyObject *value = PyObject_GetAttrString(obj, name);
    if (value == NULL)
        return -1;
    *out = PyLong_AsLong(value);
    Py_DECREF(value);
    if (*out == -1 && PyErr_Occurred())
        return -1;
    if (*out < lo || *out > hi) {
        PyErr_Format(PyExc_ValueError, "%s out of range: %ld", name, *out);
        return -1;
    }
    return 0;
}

/* The index in Kind of `obj`'s attribute `name` (a Kind or None, which gives -1). */
static int kind_attr(PyObject *obj, const char *name, int8_t *out) {
    PyObject *value = PyObject_GetAttrString(obj, name);
    if (value == NULL)
        return -1;
    *out = -1;
    for (int i = 0; i < K_COUNT; i++)
        if (value == kinds[i])
            *out = (int8_t)i;
    int bad = value != Py_None && *out < 0;
    Py_DECREF(value);
    if (bad) {
        PyErr_Format(PyExc_ValueError, "LEADS.%s is not a Kind", name);
        return -1;
    }
    return 0;
}

/* Fill LEADS from utf8guard._tables.LEADS, the one copy of Table 3-7. */
static int load_leads(void) {
    PyObject *leads = speedups_table("utf8guard._tables", "LEADS");
    if (leads == NULL)
        return speedups_table_failed("utf8guard._tables", "LEADS");
    int rc = PySequence_Size(leads) == 256 ? 0 : -1;
    if (rc < 0 && !PyErr_Occurred())
        PyErr_SetString(PyExc_ValueError, "LEADS must have 256 rows");
    for (int b = 0; rc == 0 && b < 256; b++) {
        PyObject *row = PySequence_GetItem(leads, b);
        long length = 0, lo = 0, hi = 0;
        lead_t *lead = &LEADS[b];
        rc = row == NULL || small_int_attr(row, "length", 0, 4, &length) < 0 ||
                     small_int_attr(row, "lo", 0x80, 0xBF, &lo) < 0 ||
                     small_int_attr(row, "hi", 0x80, 0xBF, &hi) < 0 ||
                     kind_attr(row, "below", &lead->below) < 0 ||
                     kind_attr(row, "above", &lead->above) < 0 ||
                     kind_attr(row, "alone", &lead->alone) < 0
                 ? -1
                 : 0;
        Py_XDECREF(row);
        lead->length = (uint8_t)length;
        lead->lo = (uint8_t)lo;
        lead->hi = (uint8_t)hi;
        /* Fail closed: exactly 00..7F are one-byte leads, a never-valid lead names
         * its violation, a real lead names what a bad second byte means. */
        if (rc == 0 && ((length == 1) != (b < 0x80) ||
                        (length == 0 && lead->alone < 0) ||
                        (length >= 2 && (lead->below < 0 || lead->above < 0)))) {
            char hex[4]; /* PyErr_Format has no %X before Python 3.12 */
            snprintf(hex, sizeof hex, "%02X", b);
            PyErr_Format(PyExc_ValueError, "LEADS[0x%s] is inconsistent", hex);
            rc = -1;
        }
    }
    Py_DECREF(leads);
    return rc < 0 ? speedups_table_failed("utf8guard._tables", "LEADS") : 0;
}

/* Take Violation and the Kind members from utf8guard._violation (at import, and
 * again when the module holds other classes: new_violation). All or nothing: on
 * failure the ones held before stay. */
static int load_kinds(void) {
    static const char *const names[K_COUNT] = {
        "OVERLONG",      "SURROGATE", "OUT_OF_RANGE", "INVALID_BYTE",
        "UNEXPECTED_CONTINUATION", "TRUNCATED", "NONCHARACTER", "NUL",
        "CONTROL",       "BIDI_CONTROL", "PRIVATE_USE", "BOM",
    };
    if (violation_name == NULL &&
        (violation_name = PyUnicode_InternFromString("utf8guard._violation")) == NULL)
        return -1;
    if (violation_attr == NULL &&
        (violation_attr = PyUnicode_InternFromString("Violation")) == NULL)
        return -1;
    PyObject *violation = PyImport_Import(violation_name);
    if (violation == NULL)
        return -1;
    PyObject *type = PyObject_GetAttrString(violation, "Violation");
    PyObject *kind = PyObject_GetAttrString(violation, "Kind");
    Py_DECREF(violation);
    PyObject *members[K_COUNT] = {NULL};
    int rc = type != NULL && kind != NULL ? 0 : -1;
    for (int i = 0; rc == 0 && i < K_COUNT; i++) {
        members[i] = PyObject_GetAttrString(kind, names[i]);
        rc = members[i] != NULL ? 0 : -1;
    }
    Py_XDECREF(kind);
    if (rc < 0) {
        Py_XDECREF(type);
        for (int i = 0; i < K_COUNT; i++)
            Py_XDECREF(members[i]);
        return -1;
    }
    Py_XSETREF(violation_type, type);
    for (int i = 0; i < K_COUNT; i++)
        Py_XSETREF(kinds[i], members[i]);
    return 0;
}

/* Fail unless _policy.FLAGS, Policy's flags (its keyword arguments, in order), is
 * exactly FLAGS: a flag C did not know would be ignored, and what it refuses let
 * through. */
static int check_flags(PyObject *names) {
    Py_ssize_t count = PySequence_Size(names);
    if (count < 0)
        return -1;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *name = PySequence_GetItem(names, i);
        if (name == NULL)
            return -1;
        int known = i < FLAG_COUNT && PyUnicode_Check(name) &&
                    PyUnicode_CompareWithASCIIString(name, FLAGS[i]) == 0;
        if (!known)
            PyErr_Format(PyExc_ValueError,
                         "Policy field %R is not the flag _speedups expects", name);
        Py_DECREF(name);
        if (!known)
            return -1;
    }
    if (count != FLAG_COUNT) {
        PyErr_Format(PyExc_ValueError, "Policy has %zd flags, _speedups knows %d", count,
                     FLAG_COUNT);
        return -1;
    }
    return 0;
}

/* The ranges utf8guard._policy refuses under FLAGS[flag] alone: refused_ranges() of a
 * Policy that turns off only that flag, which must name Kind K_NONCHARACTER + flag. */
static PyObject *python_ranges(PyObject *policy_module, PyObject *policy_type,
                               int flag) {
    PyObject *kwargs = PyDict_New();
    for (int i = 0; kwargs != NULL && i < FLAG_COUNT; i++) {
        if (PyDict_SetItemString(kwargs, FLAGS[i], i == flag ? Py_False : Py_True) < 0)
            Py_CLEAR(kwargs);
    }
    if (kwargs == NULL)
        return NULL;
    PyObject *empty = PyTuple_New(0);
    PyObject *policy = empty ? PyObject_Call(policy_type, empty, kwargs) : NULL;
    Py_XDECREF(empty);
    Py_DECREF(kwargs);
    if (policy == NULL)
        return NULL;
    PyObject *refused = PyObject_CallMethod(policy_module, "refused_ranges", "O", policy);
    Py_DECREF(policy);
    if (refused == NULL || refresh_kinds() < 0) {
        Py_XDECREF(refused);
        return NULL;
    }
    PyObject *kind = NULL, *ranges = NULL;
    if (PyTuple_Check(refused) && PyTuple_GET_SIZE(refused) == 1 &&
        PyArg_ParseTuple(PyTuple_GET_ITEM(refused, 0), "OO", &kind, &ranges) &&
        kind == kinds[K_NONCHARACTER + flag]) {
        Py_INCREF(ranges);
    } else {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "refused_ranges() for %s alone is not one set "
                     "of the expected Kind", FLAGS[flag]);
        ranges = NULL;
    }
    Py_DECREF(refused);
    return ranges;
}

/* Read ranges[i] as (lo, hi); fail unless it starts at or after `next` and lies in
 * U+0000..U+10FFFF. */
static int read_range(PyObject *ranges, Py_ssize_t i, unsigned long next, int flag,
                      unsigned long *lo, unsigned long *hi) {
    PyObject *range = PySequence_GetItem(ranges, i);
    int ok = range != NULL && PyArg_ParseTuple(range, "kk", lo, hi);
    Py_XDECREF(range);
    if (!ok)
        return -1;
    if (*lo < next || *lo > *hi || *hi > 0x10FFFF) {
        PyErr_Format(PyExc_ValueError, "%s: ranges not sorted and disjoint",
                     FLAGS[flag]);
        return -1;
    }
    return 0;
}

/* Code points a sweep block compares before it looks for where they differ. */
#define SWEEP_BLOCK 4096u
#if defined(__GNUC__)
#define SWEEP_INLINE __attribute__((always_inline)) inline
#else
#define SWEEP_INLINE inline
#endif

/* The first code point in [from, to] that C refuses otherwise than `want` (a Kind,
 * or -1) under `mask`, else 0x110000. U+0000..U+007F one at a time (refused_ascii's,
 * 128 at most); above, blocks of refused_code_point compared without branches, a
 * loop of known length over 32-bit lanes that the compiler vectorises, and searched
 * only when they hold a difference. Each caller in sweep_flag() passes one flag's
 * constant mask, so the compiler keeps only that set's test: issue 28, the sweep of
 * every code point was some 35 M instructions a set, then 7.3 M, now 5.3 M, and
 * 2.3 M under AVX2 (sweep()). */
static SWEEP_INLINE unsigned long first_other(unsigned mask, int want,
                                              unsigned long from, unsigned long to) {
    unsigned long cp = from;
    for (; cp <= to && cp < 0x80; cp++)
        if (refused_ascii((uint8_t)cp, mask) != want)
            return cp;
    while (cp <= to) {
        uint32_t count = to - cp < SWEEP_BLOCK ? (uint32_t)(to - cp + 1) : SWEEP_BLOCK;
        uint32_t base = (uint32_t)cp;
        int differs = 0;
        for (uint32_t i = 0; i < count; i++)
            differs |= refused_code_point(base + i, mask) != want;
        if (differs)
            for (uint32_t i = 0; i < count; i++)
                if (refused_code_point(base + i, mask) != want)
                    return base + i;
        cp += count;
    }
    return 0x110000;
}

/* first_other for FLAGS[flag] alone, with its mask a constant. */
static SWEEP_INLINE unsigned long sweep_flag(int flag, int want, unsigned long from,
                                             unsigned long to) {
    switch (flag) {
    case 0: return first_other(R_NONCHARACTER, want, from, to);
    case 1: return first_other(R_NUL, want, from, to);
    case 2: return first_other(R_CONTROL, want, from, to);
    case 3: return first_other(R_BIDI_CONTROL, want, from, to);
    case 4: return first_other(R_PRIVATE_USE, want, from, to);
    default: return first_other(R_BOM, want, from, to);
    }
}

#if defined(UTF8GUARD_X86) && !defined(UTF8GUARD_MSVC)
/* The same sweep compiled for AVX2: eight lanes instead of four. */
__attribute__((target("avx2"))) static unsigned long
sweep_avx2(int flag, int want, unsigned long from, unsigned long to) {
    return sweep_flag(flag, want, from, to);
}
#endif

/* sweep_flag as the active kernel's instruction set allows: AVX2's when the kernel is
 * avx2 or avx512 (then the CPU has it), else the baseline one (UTF8GUARD_ISA=scalar
 * or sse4.1 selects it, so both are tested on one machine). */
static unsigned long sweep(int flag, int want, unsigned long from, unsigned long to) {
#if defined(UTF8GUARD_X86) && !defined(UTF8GUARD_MSVC)
    const char *isa = ISAS[current_isa].name;
    if (strcmp(isa, "avx2") == 0 || strcmp(isa, "avx512") == 0)
        return sweep_avx2(flag, want, from, to);
#endif
    return sweep_flag(flag, want, from, to);
}

/* Fail unless C refuses exactly `ranges` (sorted, disjoint) under FLAGS[flag]: every
 * code point from U+0000 to U+10FFFF is compared. */
static int check_set(PyObject *ranges, int flag) {
    Py_ssize_t n = PySequence_Size(ranges);
    if (n < 0)
        return -1;
    unsigned long next = 0, lo = 0, hi = 0;
    for (Py_ssize_t i = 0; i < n; i++, next = hi + 1)
        if (read_range(ranges, i, next, flag, &lo, &hi) < 0)
            return -1;
    next = 0;
    for (Py_ssize_t i = 0; i <= n; i++, next = hi + 1) {
        lo = 0x110000; /* past the last range: only the gap before it is left */
        hi = 0x10FFFF;
        if (i < n && read_range(ranges, i, next, flag, &lo, &hi) < 0)
            return -1;
        unsigned long cp = next < lo ? sweep(flag, -1, next, lo - 1) : 0x110000;
        if (cp == 0x110000 && lo <= hi)
            cp = sweep(flag, K_NONCHARACTER + flag, lo, hi);
        if (cp != 0x110000) {
            char hex[16]; /* PyErr_Format has no %X before Python 3.12 */
            snprintf(hex, sizeof hex, "%04lX", cp);
            PyErr_Format(PyExc_ValueError,
                         "_speedups and utf8guard._policy disagree on U+%s under %s",
                         hex, FLAGS[flag]);
            return -1;
        }
    }
    return 0;
}

/* The C copies of the policy's code-point sets (refused_ascii, refused_code_point;
 * the filters are supersets of them, tested per instruction set) must equal
 * _policy.py's tables, as LEADS must equal _tables.py's: the sets of `flags`, which
 * are then marked checked. */
static int check_sets(unsigned flags) {
    PyObject *policy_module = PyImport_ImportModule("utf8guard._policy");
    if (policy_module == NULL)
        return -1;
    PyObject *policy_type = speedups_table("utf8guard._policy", "Policy");
    int rc = policy_type != NULL ? 0 : -1;
    for (int flag = 0; rc == 0 && flag < FLAG_COUNT; flag++) {
        if (!(flags & (1u << flag)))
            continue;
        PyObject *ranges = python_ranges(policy_module, policy_type, flag);
        rc = ranges != NULL && check_set(ranges, flag) == 0 ? 0 : -1;
        Py_XDECREF(ranges);
        if (rc == 0)
            checked_sets |= 1u << flag;
    }
    Py_XDECREF(policy_type);
    Py_DECREF(policy_module);
    return rc;
}

/* Fail unless utf8guard._policy.FLAGS, Policy's flags, are exactly FLAGS. */
static int load_flags(void) {
    PyObject *names = speedups_table("utf8guard._policy", "FLAGS");
    int rc = names != NULL && check_flags(names) == 0 ? 0 : -1;
    Py_XDECREF(names);
    return rc < 0 ? speedups_table_failed("utf8guard._policy", "FLAGS") : 0;
}

/* Take STRICT, is_valid's default policy, from utf8guard._policy. */
static int load_strict(void) {
    strict_policy = speedups_table("utf8guard._policy", "STRICT");
    return strict_policy == NULL ? speedups_table_failed("utf8guard._policy", "STRICT")
                                 : 0;
}

PyMODINIT_FUNC PyInit__speedups(void) {
    if (load_kinds() < 0 || load_leads() < 0 || load_flags() < 0 || load_strict() < 0)
        return NULL;
    dfa_build();
    for (int i = ISA_COUNT - 1; i > 0; i--) {
        if (isa_supported(i)) {
            current_isa = i;
            break;
        }
    }
    return PyModule_Create(&module_def);
}
