/* utf8guard._speedups, lane part: head_plan, asgi_plan and whole_plain_json.
 *
 * The compiled twins of utf8guard.middleware.head._fast.py_head_plan, py_asgi_plan and
 * py_whole_plain_json, with the same answer for every input (held together by
 * tests/middleware/test_speedups_lane.py). Read those first: each step here names the
 * Python it restates. Why in C at all: inside a server, between two requests, the
 * interpreter runs some 50 us of other code, and the lane's Python steps (a dozen
 * calls, a regex search, a dropped TypeError) cost two to three times what they
 * cost in a tight loop; one call per decision keeps that cold path short
 * (bench/README.md, "Inside a server").
 *
 * The head's rules are _speedups_http.c's (py_scan_head); the look-alike table is
 * read once from utf8guard._pathrules.LOOKALIKE_SEPARATORS, so it lives in one place.
 * Python code runs only where the twin runs it too: a Policy's attributes the first
 * time it is seen, and what _speedups_http.c runs for headers of odd types. Items
 * read from the scope and message dicts are held by strong references meanwhile.
 *
 * The tables (the look-alikes, the Content-Length grammar, the JSON opening) are
 * read through _speedups_load.h. Which types are read in C is plumbing, not a rule:
 * a scope or message that is no exact dict, a version or message type that is no
 * exact str, a body that is no exact bytes is declined (None or False: the full
 * check decides), exactly where py_asgi_plan and py_whole_plain_json decline it
 * (their `type(x) is ...` tests), so no subclass's code runs in either build.
 */
#include "_speedups_load.h"

#include <string.h>

/* ---------------------------------------------------------------------------------
 * The look-alike separators (py _clean._is_clean_path: LOOKALIKE.search of the decoded path).
 */
static uint32_t (*lookalike)[2]; /* sorted, disjoint [lo, hi] ranges */
static Py_ssize_t lookalike_count;
static int lookalike_loaded;

#define PATHRULES "utf8guard._pathrules"

/* Ranges must be sorted and disjoint within U+0000..U+10FFFF, as the binary search
 * in is_lookalike needs: any other table is refused, not searched wrongly. */
SPEEDUPS_LOADER int load_lookalike(void) {
    PyObject *table = speedups_table(PATHRULES, "LOOKALIKE_SEPARATORS");
    PyObject *fast = table == NULL ? NULL : PySequence_Fast(table, "it must be a sequence");
    Py_XDECREF(table);
    Py_ssize_t n = fast == NULL ? 0 : PySequence_Fast_GET_SIZE(fast);
    uint32_t(*ranges)[2] = fast == NULL ? NULL : PyMem_Calloc((size_t)n + 1, sizeof *ranges);
    int rc = ranges == NULL ? -1 : 0;
    if (fast != NULL && ranges == NULL)
        PyErr_NoMemory();
    long next = 0;
    for (Py_ssize_t i = 0; rc == 0 && i < n; i++) {
        long lo = -1, hi = -1;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, i), "ll", &lo, &hi) ||
            lo < next || hi < lo || hi > 0x10FFFF) {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError,
                            "it must hold sorted, disjoint (lo, hi) code point ranges");
            rc = -1;
        }
        ranges[i][0] = (uint32_t)lo;
        ranges[i][1] = (uint32_t)hi;
        next = hi + 1;
    }
    Py_XDECREF(fast);
    if (rc < 0) {
        PyMem_Free(ranges);
        return speedups_table_failed(PATHRULES, "LOOKALIKE_SEPARATORS");
    }
    lookalike = ranges;
    lookalike_count = n;
    lookalike_loaded = 1;
    return 0;
}

static int is_lookalike(uint32_t cp) {
    Py_ssize_t lo = 0, hi = lookalike_count;
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (cp > lookalike[mid][1])
            lo = mid + 1;
        else if (cp < lookalike[mid][0])
            hi = mid;
        else
            return 1;
    }
    return 0;
}

int speedups_has_lookalike(const uint8_t *p, size_t n) {
    if (!lookalike_loaded && load_lookalike() < 0)
        return -1;
    size_t i = 0;
    while (i < n) {
        uint8_t c = p[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        /* Valid UTF-8 (the caller checked it): the lead says the length. A cut
         * sequence cannot occur; were it to, "suspect" costs only time. */
        size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
        if (i + len > n)
            return 1;
        uint32_t cp = c & (0x7F >> len);
        for (size_t k = 1; k < len; k++)
            cp = (cp << 6) | (p[i + k] & 0x3F);
        if (is_lookalike(cp))
            return 1;
        i += len;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------
 * Keys and constants, interned once.
 */
static PyObject *key_raw_path, *key_query, *key_headers, *key_version, *key_type,
    *key_body, *key_more_body;
static int keys_loaded;

static int load_keys(void) {
    PyObject **keys[] = {&key_raw_path, &key_query,  &key_headers,  &key_version,
                         &key_type,     &key_body,   &key_more_body};
    const char *names[] = {"raw_path", "query_string", "headers", "http_version",
                           "type",     "body",         "more_body"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        if (*keys[i] == NULL && (*keys[i] = PyUnicode_InternFromString(names[i])) == NULL)
            return -1;
    }
    keys_loaded = 1;
    return 0;
}

/* scope.get(key) as a new reference (Py_None when absent), or NULL on error. */
static PyObject *get(PyObject *dict, PyObject *key) {
    PyObject *value = PyDict_GetItemWithError(dict, key);
    if (value == NULL && PyErr_Occurred())
        return NULL;
    return Py_NewRef(value != NULL ? value : Py_None);
}

/* `want` arguments, the first a _fast.Lane (a 6-tuple ending in a dict, which holds
 * what is read from it for the whole call): 1, else 0 with TypeError set. */
static int lane_args(const char *name, PyObject *const *args, Py_ssize_t nargs,
                     Py_ssize_t want) {
    if (!speedups_arg_count(name, nargs, want))
        return 0;
    PyObject *lane = args[0];
    if (PyTuple_Check(lane) && PyTuple_GET_SIZE(lane) == 6 &&
        PyDict_CheckExact(PyTuple_GET_ITEM(lane, 5)))
        return 1;
    PyErr_SetString(PyExc_TypeError, "lane must be a _fast.Lane tuple");
    return 0;
}

/* ---------------------------------------------------------------------------------
 * asgi_plan (py_asgi_plan).
 */
/* The body route's grammar, read from its Python homes at the first call, not
 * restated: _engine.content_length's (RFC 9110 §8.6: OWS around 1*DIGIT; OWS,
 * DIGIT, LENGTH_DIGITS, MAX_CONTENT_LENGTH) and _json.opens_utf8's (RFC 8259 §2,
 * JSON_OPENS; RFC 4627 §3, JSON_WIDE_SECOND) and is_plain_json's (RFC 8259 §7,
 * JSON_ESCAPE). */
#define ENGINE "utf8guard.middleware.engine._engine"
#define JSON "utf8guard.middleware.body._json"
static uint8_t ows_set[256], digit_set[256], opens_set[256];
static int length_digits, length_rules_loaded, json_rules_loaded;
static long long max_length;
static uint8_t wide_second, json_escape;

SPEEDUPS_LOADER int load_length_rules(void) {
    PyObject *ows = speedups_table(ENGINE, "OWS"), *digit = speedups_table(ENGINE, "DIGIT");
    PyObject *digits = speedups_table(ENGINE, "LENGTH_DIGITS");
    PyObject *max = speedups_table(ENGINE, "MAX_CONTENT_LENGTH");
    int rc = max != NULL && speedups_byte_set(ows_set, ows, 0, "OWS") == 0 &&
                     speedups_byte_set(digit_set, digit, 0, "DIGIT") == 0
                 ? 0
                 : -1;
    /* content_length reads a digit's value as c - '0'. */
    for (int c = 0; rc == 0 && c < 256; c++) {
        if (digit_set[c] && (c < '0' || c > '9')) {
            PyErr_SetString(PyExc_ValueError, "DIGIT must hold decimal digits only");
            rc = -1;
        }
    }
    if (rc == 0) {
        long count = PyLong_CheckExact(digits) ? PyLong_AsLong(digits) : 0;
        max_length = PyLong_CheckExact(max) ? PyLong_AsLongLong(max) : -1;
        length_digits = (int)count;
        /* Up to 18 digits: a number read fits in 63 bits. */
        if (count < 1 || count > 18 || max_length < 0) {
            PyErr_Clear();
            PyErr_SetString(PyExc_TypeError,
                            "_engine.LENGTH_DIGITS must be an int from 1 to 18, "
                            "MAX_CONTENT_LENGTH a 63-bit int");
            rc = -1;
        }
    }
    Py_XDECREF(ows);
    Py_XDECREF(digit);
    Py_XDECREF(digits);
    Py_XDECREF(max);
    length_rules_loaded = rc == 0;
    return rc < 0 ? speedups_table_failed(ENGINE, "OWS, DIGIT, LENGTH_DIGITS, "
                                                  "MAX_CONTENT_LENGTH")
                  : 0;
}

SPEEDUPS_LOADER int load_json_rules(void) {
    PyObject *opens = speedups_table(JSON, "JSON_OPENS");
    PyObject *wide = speedups_table(JSON, "JSON_WIDE_SECOND");
    PyObject *escape = speedups_table(JSON, "JSON_ESCAPE");
    int rc = wide != NULL && escape != NULL &&
                     speedups_byte_set(opens_set, opens, 1, "JSON_OPENS") == 0
                 ? 0
                 : -1;
    if (rc == 0 && !(PyBytes_CheckExact(wide) && PyBytes_GET_SIZE(wide) == 1)) {
        PyErr_SetString(PyExc_TypeError, "JSON_WIDE_SECOND must be one byte");
        rc = -1;
    }
    long escape_value = rc == 0 && PyLong_CheckExact(escape) ? PyLong_AsLong(escape) : -1;
    if (rc == 0 && (escape_value < 0 || escape_value > 255)) {
        PyErr_Clear(); /* an int too large for a long: the same refusal */
        PyErr_SetString(PyExc_TypeError, "JSON_ESCAPE must be a byte as int");
        rc = -1;
    }
    if (rc == 0) {
        wide_second = (uint8_t)PyBytes_AS_STRING(wide)[0];
        json_escape = (uint8_t)escape_value;
    }
    Py_XDECREF(opens);
    Py_XDECREF(wide);
    Py_XDECREF(escape);
    json_rules_loaded = rc == 0;
    return rc < 0 ? speedups_table_failed(JSON, "JSON_OPENS, JSON_WIDE_SECOND, "
                                                "JSON_ESCAPE")
                  : 0;
}

/* _engine.content_length: the number, -1 when the value is no number, -2 with an
 * exception set when the grammar cannot be read. More than LENGTH_DIGITS
 * significant digits read as MAX_CONTENT_LENGTH. */
static long long content_length(PyObject *value) {
    if (!length_rules_loaded && load_length_rules() < 0)
        return -2;
    const uint8_t *p = (const uint8_t *)PyBytes_AS_STRING(value);
    size_t n = (size_t)PyBytes_GET_SIZE(value), start = 0;
    while (start < n && ows_set[p[start]])
        start++;
    while (n > start && ows_set[p[n - 1]])
        n--;
    if (start == n)
        return -1;
    for (size_t i = start; i < n; i++) {
        if (!digit_set[p[i]])
            return -1;
    }
    while (start < n && p[start] == '0')
        start++;
    if (n - start > (size_t)length_digits)
        return max_length;
    long long number = 0;
    for (size_t i = start; i < n; i++)
        number = number * 10 + (p[i] - '0');
    return number;
}

/* `text == want` (ASCII) for an exact str. A server's compact ASCII str is read in
 * place: no call into the str machinery, which is cold code inside a server. */
static int str_is(PyObject *text, const char *want) {
    if (PyUnicode_IS_COMPACT_ASCII(text))
        return (size_t)PyUnicode_GET_LENGTH(text) == strlen(want) &&
               memcmp(PyUnicode_DATA(text), want, strlen(want)) == 0;
    return PyUnicode_CompareWithASCIIString(text, want) == 0;
}

/* `version in ("1.0", "1.1")` for an exact str (py: type(version) is str). */
static int is_http1(PyObject *version) {
    return PyUnicode_CheckExact(version) &&
           (str_is(version, "1.1") || str_is(version, "1.0"));
}

/* `kinds.get(type) is True` for a lane's kinds dict. An exact bytes type is
 * compared in place with each remembered type (at most _fast._KINDS_REMEMBERED),
 * so a header value new to each request is never hashed: siphash and the dict's
 * lookup for bytes keys are cold code inside a server. A key of another type (none
 * that _fast.remember_kind adds) sends the lookup to the dict. 1, 0, or -1 with an
 * exception set. */
static int is_json_kind(PyObject *kinds, PyObject *type) {
    if (PyBytes_CheckExact(type)) {
        Py_ssize_t pos = 0, n = PyBytes_GET_SIZE(type);
        PyObject *key, *kind;
        int plain = 1;
        while (plain && PyDict_Next(kinds, &pos, &key, &kind)) {
            plain = PyBytes_CheckExact(key);
            if (plain && PyBytes_GET_SIZE(key) == n &&
                memcmp(PyBytes_AS_STRING(key), PyBytes_AS_STRING(type), (size_t)n) == 0)
                return kind == Py_True;
        }
        if (plain)
            return 0;
    }
    PyObject *kind = PyDict_GetItemWithError(kinds, type);
    if (kind == NULL && PyErr_Occurred())
        return -1;
    return kind == Py_True;
}

/* From a clean head's fields to the plan (py head_plan, after the scan). */
static PyObject *plan_body(const head_scan_t *found, int bodiless, PyObject *lane) {
    if (found->length == NULL) {
        if (found->type == NULL && bodiless)
            return PyLong_FromLong(-1);
        Py_RETURN_NONE;
    }
    long long length = content_length(found->length);
    if (length == -2)
        return NULL;
    long long limit = PyLong_AsLongLong(PyTuple_GET_ITEM(lane, 4));
    if (limit == -1 && PyErr_Occurred())
        return NULL;
    if (length < 0 || length > limit)
        Py_RETURN_NONE;
    if (found->type != NULL) {
        int json = is_json_kind(PyTuple_GET_ITEM(lane, 5), found->type);
        if (json < 0)
            return NULL;
        if (json)
            return PyLong_FromLongLong(length);
    }
    return Py_BuildValue("(LO)", length, found->type != NULL ? found->type : Py_None);
}

/* py head_plan over parts = (raw_path, app_path, query, headers), held by the
 * caller. */
static PyObject *plan_parts(PyObject *lane, PyObject *const parts[4], int bodiless) {
    PyObject *policies[3] = {PyTuple_GET_ITEM(lane, 0), PyTuple_GET_ITEM(lane, 1),
                             PyTuple_GET_ITEM(lane, 2)};
    int lookalike = PyObject_IsTrue(PyTuple_GET_ITEM(lane, 3));
    if (lookalike < 0)
        return NULL;
    head_scan_t found = {NULL, NULL, NULL};
    int rc = speedups_scan_parts(parts, policies, lookalike, &found);
    PyObject *result = NULL;
    if (rc == 1) {
        /* Held: the dict lookup may hash a bytes subclass in Python. */
        Py_XINCREF(found.length);
        Py_XINCREF(found.type);
        result = plan_body(&found, bodiless, lane);
        Py_XDECREF(found.length);
        Py_XDECREF(found.type);
    } else if (rc == 0) {
        result = Py_NewRef(Py_None);
    }
    Py_XDECREF(found.owned);
    return result;
}

const char speedups_head_plan_doc[] =
    "head_plan(lane, raw_path, app_path, query, headers, bodiless, /)\n--\n\n"
    "utf8guard.middleware.head._fast.py_head_plan, compiled: None (the full check), "
    "-1 (no body), a JSON body's length, or (length, content_type).";

PyObject *speedups_head_plan(PyObject *module, PyObject *const *args,
                             Py_ssize_t nargs) {
    (void)module;
    if (!lane_args("head_plan", args, nargs, 6))
        return NULL;
    int bodiless = PyObject_IsTrue(args[5]);
    return bodiless < 0 ? NULL : plan_parts(args[0], args + 1, bodiless);
}

const char speedups_asgi_plan_doc[] =
    "asgi_plan(lane, scope, /)\n--\n\n"
    "utf8guard.middleware.head._fast.py_asgi_plan, compiled: None (the full check), "
    "-1 (no body), a JSON body's length, or (length, content_type).";

PyObject *speedups_asgi_plan(PyObject *module, PyObject *const *args,
                             Py_ssize_t nargs) {
    (void)module;
    if (!lane_args("asgi_plan", args, nargs, 2))
        return NULL;
    PyObject *lane = args[0], *scope = args[1];
    if (!PyDict_CheckExact(scope))
        Py_RETURN_NONE;
    if (!keys_loaded && load_keys() < 0)
        return NULL;
    PyObject *parts[4] = {get(scope, key_raw_path), Py_None, get(scope, key_query),
                          get(scope, key_headers)};
    PyObject *version = get(scope, key_version);
    PyObject *result = NULL;
    if (parts[0] != NULL && parts[2] != NULL && parts[3] != NULL && version != NULL)
        result = plan_parts(lane, parts, is_http1(version));
    Py_XDECREF(parts[0]);
    Py_XDECREF(parts[2]);
    Py_XDECREF(parts[3]);
    Py_XDECREF(version);
    return result;
}

/* ---------------------------------------------------------------------------------
 * whole_plain_json (py_whole_plain_json).
 */
/* message["type"] == "http.request" for an exact str; more_body absent or False;
 * body exact bytes of `length` bytes. 1, 0, or -1 with an exception set. */
static int whole(PyObject *message, Py_ssize_t length, PyObject **body) {
    PyObject *type = PyDict_GetItemWithError(message, key_type);
    if (type == NULL)
        return PyErr_Occurred() ? -1 : 0;
    if (!PyUnicode_CheckExact(type) || !str_is(type, "http.request"))
        return 0;
    PyObject *more = PyDict_GetItemWithError(message, key_more_body);
    if (more == NULL && PyErr_Occurred())
        return -1;
    if (more != NULL && more != Py_False)
        return 0;
    *body = PyDict_GetItemWithError(message, key_body);
    if (*body == NULL)
        return PyErr_Occurred() ? -1 : 0;
    return PyBytes_CheckExact(*body) && PyBytes_GET_SIZE(*body) == length;
}

const char speedups_whole_plain_json_doc[] =
    "whole_plain_json(lane, message, length, /)\n--\n\n"
    "utf8guard.middleware.head._fast.py_whole_plain_json, compiled: True only when the "
    "message is the whole body, a JSON text that json.loads reads as UTF-8, with no "
    "escape, valid under the lane's policy.";

PyObject *speedups_whole_plain_json(PyObject *module, PyObject *const *args,
                                    Py_ssize_t nargs) {
    (void)module;
    if (!lane_args("whole_plain_json", args, nargs, 3))
        return NULL;
    PyObject *lane = args[0], *message = args[1];
    Py_ssize_t length = PyLong_AsSsize_t(args[2]);
    if (length == -1 && PyErr_Occurred())
        return NULL;
    if (!PyDict_CheckExact(message))
        Py_RETURN_FALSE;
    if (!keys_loaded && load_keys() < 0)
        return NULL;
    PyObject *body = NULL;
    int rc = whole(message, length, &body);
    if (rc != 1)
        return rc < 0 ? NULL : Py_NewRef(Py_False);
    /* Held: reading a new policy below runs Python code. */
    Py_INCREF(body);
    const uint8_t *p = (const uint8_t *)PyBytes_AS_STRING(body);
    size_t n = (size_t)length;
    /* _json.opens_utf8: JSON_OPENS first, and not JSON_WIDE_SECOND second (RFC 4627
     * §3: a UTF-16 or UTF-32 text has a NUL in its first two bytes); and no
     * JSON_ESCAPE, so no escape to weigh (RFC 8259 §7). */
    rc = json_rules_loaded ? 0 : load_json_rules();
    if (rc == 0)
        rc = n > 0 && opens_set[p[0]] && (n < 2 || p[1] != wide_second) &&
             memchr(p, json_escape, n) == NULL;
    if (rc == 1)
        rc = speedups_policy_is_valid(p, n, PyTuple_GET_ITEM(lane, 1));
    Py_DECREF(body);
    return rc < 0 ? NULL : PyBool_FromLong(rc);
}

/* ---------------------------------------------------------------------------------
 * prepend (adapter._asgi_receive.py_prepend).
 *
 * The app's receive on the lane: its first call returns an awaitable that completes
 * at once with the held message (the body's first message, already checked), every
 * later call returns the server's receive() itself. One object is both: the first
 * call moves the message from `held` to `ready` and returns the object, whose await
 * (am_await, then am_send, or tp_iternext when a tracer runs) hands `ready` over. So
 * a clean request costs one allocation and no Python frame, where the Python twin
 * costs a closure, a coroutine and its frame (bench/README.md, "Issue 28: the
 * lane's receive in C").
 */
typedef struct {
    PyObject_HEAD
    PyObject *held;    /* the first message, until the first call */
    PyObject *ready;   /* the first call's message, until awaited */
    PyObject *receive; /* the server's */
    vectorcallfunc vectorcall;
} prepend_t;

static int prepend_traverse(prepend_t *self, visitproc visit, void *arg) {
    Py_VISIT(self->held);
    Py_VISIT(self->ready);
    Py_VISIT(self->receive);
    return 0;
}

static int prepend_clear(prepend_t *self) {
    Py_CLEAR(self->held);
    Py_CLEAR(self->ready);
    Py_CLEAR(self->receive);
    return 0;
}

static void prepend_dealloc(prepend_t *self) {
    PyObject_GC_UnTrack(self);
    prepend_clear(self);
    PyObject_GC_Del(self);
}

/* replay(): as py_prepend's, which takes no argument. */
static PyObject *prepend_call(PyObject *callable, PyObject *const *args, size_t nargsf,
                              PyObject *kwnames) {
    (void)args;
    prepend_t *self = (prepend_t *)callable;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs != 0 || (kwnames != NULL && PyTuple_GET_SIZE(kwnames) != 0)) {
        PyErr_Format(PyExc_TypeError, "replay() takes no arguments (%zd given)",
                     nargs + (kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0));
        return NULL;
    }
    if (self->held == NULL)
        return PyObject_CallNoArgs(self->receive);
    Py_XSETREF(self->ready, self->held);
    self->held = NULL;
    return Py_NewRef(callable);
}

/* An awaitable is awaited once, as a coroutine is (the same RuntimeError). */
static int prepend_spent(prepend_t *self) {
    if (self->ready != NULL)
        return 0;
    PyErr_SetString(PyExc_RuntimeError, "cannot reuse already awaited coroutine");
    return 1;
}

static PyObject *prepend_await(PyObject *awaitable) {
    return prepend_spent((prepend_t *)awaitable) ? NULL : Py_NewRef(awaitable);
}

static PySendResult prepend_send(PyObject *awaitable, PyObject *arg, PyObject **result) {
    (void)arg;
    prepend_t *self = (prepend_t *)awaitable;
    if (prepend_spent(self)) {
        *result = NULL;
        return PYGEN_ERROR;
    }
    *result = self->ready; /* the reference moves to the caller */
    self->ready = NULL;
    return PYGEN_RETURN;
}

/* The iterator protocol's form of prepend_send: StopIteration(message). */
static PyObject *prepend_next(PyObject *awaitable) {
    PyObject *message = NULL;
    if (prepend_send(awaitable, Py_None, &message) == PYGEN_RETURN) {
        PyObject *stop = PyObject_CallOneArg(PyExc_StopIteration, message);
        Py_DECREF(message);
        if (stop != NULL) {
            PyErr_SetObject(PyExc_StopIteration, stop);
            Py_DECREF(stop);
        }
    }
    return NULL;
}

static PyAsyncMethods prepend_async = {
    .am_await = prepend_await,
    .am_send = prepend_send,
};

static PyTypeObject prepend_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "utf8guard._speedups.Prepend",
    .tp_doc = "The receive of _speedups.prepend: see adapter._asgi_receive.py_prepend.",
    .tp_basicsize = sizeof(prepend_t),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_vectorcall_offset = offsetof(prepend_t, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_dealloc = (destructor)prepend_dealloc,
    .tp_traverse = (traverseproc)prepend_traverse,
    .tp_clear = (inquiry)prepend_clear,
    .tp_as_async = &prepend_async,
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = prepend_next,
};
static int prepend_ready;

const char speedups_prepend_doc[] =
    "prepend(message, receive, /)\n--\n\n"
    "utf8guard.middleware.adapter._asgi_receive.py_prepend, compiled: a receive whose "
    "first call gives an awaitable of message, every later call receive().";

PyObject *speedups_prepend(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (!speedups_arg_count("prepend", nargs, 2))
        return NULL;
    if (!prepend_ready) {
        if (PyType_Ready(&prepend_type) < 0)
            return NULL;
        prepend_ready = 1;
    }
    prepend_t *self = PyObject_GC_New(prepend_t, &prepend_type);
    if (self == NULL)
        return NULL;
    self->held = Py_NewRef(args[0]);
    self->ready = NULL;
    self->receive = Py_NewRef(args[1]);
    self->vectorcall = prepend_call;
    PyObject_GC_Track(self);
    return (PyObject *)self;
}
