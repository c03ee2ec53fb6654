/* utf8guard._speedups, HTTP part: scan_head and strict_unquote.
 *
 * The compiled twins of utf8guard.middleware.head._clean.py_scan_head and
 * _percent.strict_unquote, with the same answer for every input (held together by
 * tests/test_speedups_http.py). Read py_scan_head first: each function here names
 * the Python helper it restates. UTF-8 under a Policy is judged by _speedups.c's
 * scan with the mask it reads from the Policy; tchar is read once from
 * utf8guard.middleware.head._abnf.TCHAR, so both rules live in one place.
 *
 * Python code runs during a call only where py_scan_head runs it too (and, once, the
 * import that reads TCHAR): a non-bytes app_path's __ne__, a Policy's attributes the
 * first time it is seen, and the iteration, len() and isinstance() of headers that
 * are not plain lists and tuples of bytes. Plain headers (what servers pass) are read in place through borrowed
 * references, and only when nothing can run meanwhile; anything else is first
 * copied into a list this file owns, so no callback can free what is being read.
 *
 * Two liberties, both for objects no server passes: a bytes subclass is read as its
 * bytes (an overridden __contains__ is not called), and an object that passes
 * isinstance(x, bytes) through a faked __class__ raises the TypeError bytes.join
 * raises for it, even when it has a buffer that bytes.join would accept.
 */
#include "_speedups_load.h"

#include <string.h>

/* Decoded paths and queries up to this size are built on the stack. */
#define STACK_BYTES 512

/* ---------------------------------------------------------------------------------
 * Percent-decoding, RFC 3986 §2.1: pct-encoded = "%" HEXDIG HEXDIG, either case.
 */
static inline int hex_value(uint8_t c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* src[0:n] into out (room for n bytes) with every escape decoded, and "+" as SP when
 * plus_is_space (the form rule). The decoded length, or -1 when a "%" starts no
 * escape (_percent.strict_unquote: nothing is kept as a literal "%"). */
static Py_ssize_t unquote(const uint8_t *src, size_t n, uint8_t *out,
                          int plus_is_space) {
    Py_ssize_t len = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = src[i];
        if (c == '%') {
            int high = i + 2 < n ? hex_value(src[i + 1]) : -1;
            int low = high >= 0 ? hex_value(src[i + 2]) : -1;
            if (low < 0)
                return -1;
            c = (uint8_t)(high << 4 | low);
            i += 2;
        } else if (c == '+' && plus_is_space) {
            c = ' ';
        }
        out[len++] = c;
    }
    return len;
}

/* Room for a decoded component: on the stack when small, else on the heap. */
typedef struct {
    uint8_t *data;
    uint8_t small[STACK_BYTES];
} buffer_t;

static uint8_t *buffer_get(buffer_t *b, size_t n) {
    b->data = n <= STACK_BYTES ? b->small : PyMem_Malloc(n);
    if (b->data == NULL)
        PyErr_NoMemory();
    return b->data;
}

static void buffer_free(buffer_t *b) {
    if (b->data != b->small)
        PyMem_Free(b->data);
}

static int is_ascii(const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i] >= 0x80)
            return 0;
    return 1;
}

const char speedups_strict_unquote_doc[] =
    "strict_unquote(raw, /)\n--\n\n"
    "raw with every %XX decoded; None if a % starts no such escape.";

PyObject *speedups_strict_unquote(PyObject *module, PyObject *raw) {
    (void)module;
    if (!PyBytes_Check(raw)) {
        PyErr_Format(PyExc_TypeError,
                     "strict_unquote() argument must be bytes, not %.200s",
                     Py_TYPE(raw)->tp_name);
        return NULL;
    }
    const uint8_t *src = (const uint8_t *)PyBytes_AS_STRING(raw);
    size_t n = (size_t)PyBytes_GET_SIZE(raw);
    if (PyBytes_CheckExact(raw) && memchr(src, '%', n) == NULL)
        return Py_NewRef(raw);
    buffer_t buf;
    uint8_t *out = buffer_get(&buf, n);
    if (out == NULL)
        return NULL;
    Py_ssize_t len = unquote(src, n, out, 0);
    PyObject *result = len < 0 ? Py_NewRef(Py_None)
                               : PyBytes_FromStringAndSize((const char *)out, len);
    buffer_free(&buf);
    return result;
}

/* ---------------------------------------------------------------------------------
 * Policy masks: a head needs three policies (path, query, headers) per GuardConfig,
 * and _speedups.c remembers one, so the last 16 are kept here (a process with a few
 * configs never misses; a miss costs six attribute reads and, for the headers, the
 * copying walk). Strong references: an identity match is the same (frozen) Policy,
 * as _speedups.c assumes too.
 */
#define MASK_CACHE_SIZE 16
static PyObject *mask_policies[MASK_CACHE_SIZE];
static unsigned mask_values[MASK_CACHE_SIZE];
static int mask_next;

/* 1 with *mask set when `policy` was seen lately; runs no Python code. */
static int cached_mask(PyObject *policy, unsigned *mask) {
    for (int i = 0; i < MASK_CACHE_SIZE; i++) {
        if (mask_policies[i] == policy) {
            *mask = mask_values[i];
            return 1;
        }
    }
    return 0;
}

static int mask_of(PyObject *policy, unsigned *mask) {
    if (cached_mask(policy, mask))
        return 0;
    if (speedups_policy_mask(policy, mask) < 0)
        return -1;
    int slot = mask_next;
    mask_next = (slot + 1) % MASK_CACHE_SIZE;
    PyObject *old = mask_policies[slot];
    mask_values[slot] = *mask;
    mask_policies[slot] = Py_NewRef(policy);
    Py_XDECREF(old);
    return 0;
}

/* Short inputs of printable ASCII skip the scan: every policy allows U+0020..U+007E
 * (they refuse NUL, controls, DEL, noncharacters, bidi controls, private use and
 * the BOM), and a header value is usually nothing else. */
#define PRINTABLE_BYTES 64

/* Whether every byte of p[0:n] is in 0x20..0x7E; 8 at a time ("hasless" and
 * "hasmore" from Sean Anderson's Bit Twiddling Hacks: exact for "any byte"). */
static int is_printable(const uint8_t *p, size_t n) {
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        /* A byte below 0x20, or at or above 0x7F (its high bit, or +1 sets it). */
        if (((w - ones * 0x20) & ~w & highs) || ((w | (w + ones)) & highs))
            return 0;
    }
    for (; i < n; i++)
        if (p[i] < 0x20 || p[i] > 0x7E)
            return 0;
    return 1;
}

/* utf8guard._policy.Policy, read once: an instance of exactly that class has
 * every flag (reading one runs no Python code and cannot fail), so the shortcuts
 * below may leave it unread where py_scan_head reads it. */
static PyObject *policy_type;

/* Loaders run once (SPEEDUPS_LOADER: out of line, outside the hot path). */
SPEEDUPS_LOADER int load_policy_type(void) {
    policy_type = speedups_table("utf8guard._policy", "Policy");
    return policy_type == NULL ? speedups_table_failed("utf8guard._policy", "Policy") : 0;
}

static int is_exact_policy(PyObject *policy) {
    if (policy_type == NULL && load_policy_type() < 0)
        return -1;
    return (PyObject *)Py_TYPE(policy) == policy_type;
}

/* is_valid(p[0:n], policy): 1, 0, or -1 when the policy cannot be read. */
int speedups_policy_is_valid(const uint8_t *p, size_t n, PyObject *policy) {
    if (n <= PRINTABLE_BYTES && is_printable(p, n)) {
        int exact = is_exact_policy(policy);
        if (exact != 0)
            return exact;
    }
    unsigned mask;
    if (mask_of(policy, &mask) < 0)
        return -1;
    return speedups_is_valid(p, n, mask);
}

/* ---------------------------------------------------------------------------------
 * Path and query (py _clean_path, _is_clean_query). Each returns 1 when clean,
 * 0 when not, -1 with an exception set.
 */

/* The lane's table, utf8guard.middleware.head._clean.TRIGGERS (py Triggers): what each
 * rule declares can make it find anything. Read at the first call; a component
 * holding none of its set's needles is clean of those rules. */
typedef struct {
    PyObject *needles;  /* a tuple of non-empty bytes, borrowed from `trigger_table` */
    uint8_t first[256]; /* 1 for a byte some needle starts with */
} needle_set;

static PyObject *trigger_table; /* owned: keeps every needle alive */
static needle_set raw_path_set, decoded_path_set, query_set, value_set;
/* Whether a query needle lacks "%" (then every query is decoded), and whether a
 * value needle is all printable (then no value skips the search). */
static int query_always_decoded, value_needs_search;

/* The byte at index i of (`slash` ? "/" : "") + p, in ASCII lower case when `fold`
 * (str.lower() of ASCII). */
static inline uint8_t byte_at(const uint8_t *p, size_t i, int fold, int slash) {
    if (slash) {
        if (i == 0)
            return '/';
        i--;
    }
    uint8_t c = p[i];
    return fold && c >= 'A' && c <= 'Z' ? (uint8_t)(c + ('a' - 'A')) : c;
}

/* Whether some needle of `set` occurs in (`slash` ? "/" : "") + p[0..n), read in ASCII
 * lower case when `fold`: py `needle in probe` for each needle. */
static int holds_any(const needle_set *set, const uint8_t *p, size_t n, int fold,
                     int slash) {
    if (set->needles == NULL)
        return 0;
    /* No bytes object is this long; the bound tells the compiler n + 1 cannot wrap. */
    if (n >= (size_t)PY_SSIZE_T_MAX)
        return 1;
    size_t total = n + (slash ? 1 : 0);
    Py_ssize_t count = PyTuple_GET_SIZE(set->needles);
    for (size_t i = 0; i < total; i++) {
        if (!set->first[byte_at(p, i, fold, slash)])
            continue;
        for (Py_ssize_t k = 0; k < count; k++) {
            PyObject *needle = PyTuple_GET_ITEM(set->needles, k);
            const uint8_t *q = (const uint8_t *)PyBytes_AS_STRING(needle);
            size_t m = (size_t)PyBytes_GET_SIZE(needle);
            size_t j = 0;
            while (j < m && i + j < total && byte_at(p, i + j, fold, slash) == q[j])
                j++;
            if (j == m)
                return 1;
        }
    }
    return 0;
}

/* `trigger` (a _trigger.Trigger) must have a tuple of non-empty bytes as its
 * needles: 0, or -1 with TypeError set. */
static int load_set(needle_set *set, PyObject *trigger) {
    memset(set, 0, sizeof *set);
    PyObject *needles = PyTuple_Check(trigger) && PyTuple_GET_SIZE(trigger) == 2
                            ? PyTuple_GET_ITEM(trigger, 0)
                            : NULL;
    const char *message = "_clean.TRIGGERS: needles must be a tuple of non-empty bytes";
    if (needles == NULL) {
        PyErr_SetString(PyExc_TypeError, message);
        return -1;
    }
    if (speedups_bytes_tuple(needles, message) < 0)
        return -1;
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(needles); k++)
        set->first[(uint8_t)PyBytes_AS_STRING(PyTuple_GET_ITEM(needles, k))[0]] = 1;
    set->needles = needles;
    return 0;
}

/* A raw target that is not ASCII, or holds a trigger of the path rules (py
 * _clean_path: PATH_TRICK_TRIGGERS, in "/" + the path in lower case). */
static int path_is_suspect(const uint8_t *p, size_t n) {
    return !is_ascii(p, n) || holds_any(&raw_path_set, p, n, 1, 1);
}

/* `app_path is None or app_path == decoded` (decoded is raw when nothing was
 * escaped); anything but bytes compares as Python's != does. */
static int app_path_matches(PyObject *app_path, PyObject *raw, int escaped,
                            const uint8_t *decoded, size_t len) {
    if (app_path == Py_None)
        return 1;
    if (PyBytes_CheckExact(app_path))
        return (size_t)PyBytes_GET_SIZE(app_path) == len &&
               memcmp(PyBytes_AS_STRING(app_path), decoded, len) == 0;
    PyObject *other = escaped ? PyBytes_FromStringAndSize((const char *)decoded,
                                                          (Py_ssize_t)len)
                              : Py_NewRef(raw);
    if (other == NULL)
        return -1;
    PyObject *differs = PyObject_RichCompare(app_path, other, Py_NE);
    Py_DECREF(other);
    if (differs == NULL)
        return -1;
    int truth = PyObject_IsTrue(differs);
    Py_DECREF(differs);
    return truth < 0 ? -1 : !truth;
}

/* raw is exact bytes; with `lookalike` the look-alike rule too, in the path
 * decoded once (py _is_clean_path). */
static int clean_path(PyObject *raw, PyObject *app_path, PyObject *policy,
                      int lookalike) {
    const uint8_t *p = (const uint8_t *)PyBytes_AS_STRING(raw);
    size_t n = (size_t)PyBytes_GET_SIZE(raw);
    if (path_is_suspect(p, n))
        return 0;
    const uint8_t *decoded = p;
    size_t len = n;
    int escaped = memchr(p, '%', n) != NULL;
    buffer_t buf;
    buf.data = buf.small;
    int rc = 1;
    if (escaped) {
        uint8_t *out = buffer_get(&buf, n);
        if (out == NULL)
            return -1;
        Py_ssize_t got = unquote(p, n, out, 0);
        decoded = out;
        len = got < 0 ? 0 : (size_t)got;
        /* -1: a malformed escape. */
        if (got < 0)
            rc = 0;
    }
    if (rc == 1 && holds_any(&decoded_path_set, decoded, len, 0, 0))
        rc = 0;
    if (rc == 1)
        rc = app_path_matches(app_path, raw, escaped, decoded, len);
    if (rc == 1)
        rc = speedups_policy_is_valid(decoded, len, policy);
    if (rc == 1 && lookalike && !is_ascii(decoded, len)) {
        int found = speedups_has_lookalike(decoded, len);
        rc = found < 0 ? -1 : !found;
    }
    buffer_free(&buf);
    return rc;
}

/* query is exact bytes. "&", "=" and "+" are ASCII and no sequence spans one, so the
 * decoded query is clean exactly when each decoded name and value is. */
static int clean_query(PyObject *query, PyObject *policy) {
    const uint8_t *p = (const uint8_t *)PyBytes_AS_STRING(query);
    size_t n = (size_t)PyBytes_GET_SIZE(query);
    if (!is_ascii(p, n))
        return 0;
    if (!query_always_decoded && memchr(p, '%', n) == NULL)
        return speedups_policy_is_valid(p, n, policy);
    buffer_t buf;
    uint8_t *out = buffer_get(&buf, n);
    if (out == NULL)
        return -1;
    Py_ssize_t got = unquote(p, n, out, 1);
    size_t len = got < 0 ? 0 : (size_t)got;
    int rc = got < 0 || holds_any(&query_set, out, len, 0, 0)
                 ? 0
                 : speedups_policy_is_valid(out, len, policy);
    buffer_free(&buf);
    return rc;
}

/* ---------------------------------------------------------------------------------
 * Headers (py clean_headers).
 */
/* RFC 9110 §5.6.2 tchar, filled from _abnf.TCHAR on first use. */
static uint8_t tchar[256];
static int tchar_loaded;

SPEEDUPS_LOADER int load_tchar(void) {
    const char *abnf = "utf8guard.middleware.head._abnf";
    PyObject *chars = speedups_table(abnf, "TCHAR");
    int rc = chars == NULL ? -1 : speedups_byte_set(tchar, chars, 0, "TCHAR");
    Py_XDECREF(chars);
    tchar_loaded = rc == 0;
    return rc < 0 ? speedups_table_failed(abnf, "TCHAR") : 0;
}

/* The fields whose count and values the proof weighs, by lower-case name: py
 * _clean.TRIGGERS.once (in its order) and .declined, read with the table. */
#define MAX_DECLINED 8
enum field {
    F_OTHER,
    F_HOST,
    F_COOKIE,
    F_CONTENT_LENGTH,
    F_CONTENT_TYPE,
    F_DECLINED,
    F_COUNT = F_DECLINED + MAX_DECLINED
};

/* Each field's name (bytes borrowed from trigger_table); NULL for none. */
static PyObject *field_names[F_COUNT];

/* The field a name is, comparing in ASCII lower case (bytes.lower()). */
static enum field field_of(const uint8_t *name, Py_ssize_t n) {
    for (int f = F_HOST; f < F_COUNT; f++) {
        PyObject *known = field_names[f];
        if (known == NULL || n != PyBytes_GET_SIZE(known))
            continue;
        const uint8_t *q = (const uint8_t *)PyBytes_AS_STRING(known);
        Py_ssize_t i = 0;
        for (; i < n; i++) {
            uint8_t c = name[i];
            uint8_t lower = c >= 'A' && c <= 'Z' ? (uint8_t)(c + ('a' - 'A')) : c;
            if (lower != q[i])
                break;
        }
        if (i == n)
            return (enum field)f;
    }
    return F_OTHER;
}

#define PAIR_NAME(pairs, i) PySequence_Fast_ITEMS(PySequence_Fast_ITEMS(pairs)[i])[0]
#define PAIR_VALUE(pairs, i) PySequence_Fast_ITEMS(PySequence_Fast_ITEMS(pairs)[i])[1]
#define BYTES_OF(obj) ((const uint8_t *)PyBytes_AS_STRING(obj))

/* Per field of enum field: the needles its one value must not hold. */
static needle_set field_sets[F_COUNT];
static int triggers_loaded;

/* `names` (a tuple of `count` non-empty bytes, or of at most `count` when
 * `at_most`) into field_names from `first`: 0, or -1 with TypeError set. */
static int load_names(PyObject *names, int first, Py_ssize_t count, int at_most) {
    if (!PyTuple_CheckExact(names) || PyTuple_GET_SIZE(names) > count ||
        (!at_most && PyTuple_GET_SIZE(names) != count)) {
        PyErr_SetString(PyExc_TypeError,
                        "_clean.TRIGGERS: once and declined must be tuples of names");
        return -1;
    }
    if (speedups_bytes_tuple(names, "_clean.TRIGGERS: a field name must be non-empty "
                                    "bytes") < 0)
        return -1;
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(names); k++)
        field_names[first + k] = PyTuple_GET_ITEM(names, k);
    return 0;
}

/* Whether some needle of `trigger` (loaded) lacks `byte`, or is all printable. */
static int some_needle_lacks(PyObject *trigger, uint8_t byte, int printable) {
    PyObject *needles = PyTuple_GET_ITEM(trigger, 0);
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(needles); k++) {
        PyObject *needle = PyTuple_GET_ITEM(needles, k);
        const uint8_t *q = (const uint8_t *)PyBytes_AS_STRING(needle);
        size_t m = (size_t)PyBytes_GET_SIZE(needle);
        if (printable ? is_printable(q, m) : memchr(q, byte, m) == NULL)
            return 1;
    }
    return 0;
}

/* Reads _clean.TRIGGERS (a new reference, which it keeps): (raw_path,
 * decoded_path, decoded_query, values, ((name, trigger), ...), once, declined),
 * each field name one of `once`. 0, or -1 with an exception set. */
static int read_triggers(PyObject *table) {
    Py_XSETREF(trigger_table, table);
    memset(field_names, 0, sizeof field_names);
    if (!PyTuple_Check(table) || PyTuple_GET_SIZE(table) != 7 ||
        !PyTuple_CheckExact(PyTuple_GET_ITEM(table, 4))) {
        PyErr_SetString(PyExc_TypeError, "_clean.TRIGGERS must be a Triggers");
        return -1;
    }
    if (load_set(&raw_path_set, PyTuple_GET_ITEM(table, 0)) < 0 ||
        load_set(&decoded_path_set, PyTuple_GET_ITEM(table, 1)) < 0 ||
        load_set(&query_set, PyTuple_GET_ITEM(table, 2)) < 0 ||
        load_set(&value_set, PyTuple_GET_ITEM(table, 3)) < 0 ||
        load_names(PyTuple_GET_ITEM(table, 5), F_HOST, F_DECLINED - F_HOST, 0) < 0 ||
        load_names(PyTuple_GET_ITEM(table, 6), F_DECLINED, MAX_DECLINED, 1) < 0)
        return -1;
    query_always_decoded = some_needle_lacks(PyTuple_GET_ITEM(table, 2), '%', 0);
    value_needs_search = some_needle_lacks(PyTuple_GET_ITEM(table, 3), 0, 1);
    PyObject *fields = PyTuple_GET_ITEM(table, 4);
    memset(field_sets, 0, sizeof field_sets);
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(fields); k++) {
        PyObject *entry = PyTuple_GET_ITEM(fields, k);
        PyObject *name = PyTuple_CheckExact(entry) && PyTuple_GET_SIZE(entry) == 2
                             ? PyTuple_GET_ITEM(entry, 0)
                             : NULL;
        enum field f = name != NULL && PyBytes_CheckExact(name)
                           ? field_of(BYTES_OF(name), PyBytes_GET_SIZE(name))
                           : F_OTHER;
        if (f < F_HOST || f >= F_DECLINED) {
            PyErr_SetString(PyExc_ValueError,
                            "_clean.TRIGGERS: a field must be a once-only name");
            return -1;
        }
        if (load_set(&field_sets[f], PyTuple_GET_ITEM(entry, 1)) < 0)
            return -1;
    }
    triggers_loaded = 1;
    return 0;
}

SPEEDUPS_LOADER int load_triggers(void) {
    const char *clean = "utf8guard.middleware.head._clean";
    PyObject *table = speedups_table(clean, "TRIGGERS");
    if (table == NULL || read_triggers(table) < 0)
        return speedups_table_failed(clean, "TRIGGERS");
    return 0;
}

/* _clean.OnceFields, read at scan_head's first call: a tuple subclass, whose
 * instances scan_head builds as tuple.__new__ builds them. */
static PyTypeObject *once_fields_type;

SPEEDUPS_LOADER int load_once_fields(void) {
    const char *clean = "utf8guard.middleware.head._clean";
    PyObject *found = speedups_table(clean, "OnceFields");
    if (found != NULL && !(PyType_Check(found) &&
                           PyType_IsSubtype((PyTypeObject *)found, &PyTuple_Type))) {
        PyErr_SetString(PyExc_TypeError, "OnceFields must be a tuple subclass");
        Py_CLEAR(found);
    }
    if (found == NULL)
        return speedups_table_failed(clean, "OnceFields");
    once_fields_type = (PyTypeObject *)found;
    return 0;
}

/* OnceFields(length, type), None for an absent field. */
static PyObject *new_once_fields(PyObject *length, PyObject *type) {
    PyObject *fields = once_fields_type->tp_alloc(once_fields_type, 2);
    if (fields != NULL) {
        PyTuple_SET_ITEM(fields, 0, Py_NewRef(length != NULL ? length : Py_None));
        PyTuple_SET_ITEM(fields, 1, Py_NewRef(type != NULL ? type : Py_None));
    }
    return fields;
}

/* What bytes.join raises for an item that is no bytes. */
static int join_error(Py_ssize_t index, PyObject *item) {
    PyErr_Format(PyExc_TypeError, "sequence item %zd: expected a bytes-like object, "
                 "%.80s found", index, Py_TYPE(item)->tp_name);
    return -1;
}

/* Every name a token (RFC 9110 §5.1): one or more tchar. Counts each field of
 * enum field and notes where it first occurs. */
static int names_are_tokens(PyObject *pairs, Py_ssize_t counts[F_COUNT],
                            Py_ssize_t firsts[F_COUNT]) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(pairs);
    for (Py_ssize_t i = 0; i < n; i++)
        if (!PyBytes_Check(PAIR_NAME(pairs, i)))
            return join_error(i, PAIR_NAME(pairs, i));
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *name = PAIR_NAME(pairs, i);
        Py_ssize_t size = PyBytes_GET_SIZE(name);
        const uint8_t *p = BYTES_OF(name);
        if (size == 0)
            return 0;
        for (Py_ssize_t k = 0; k < size; k++)
            if (!tchar[p[k]])
                return 0;
        enum field f = field_of(p, size);
        if (counts[f]++ == 0)
            firsts[f] = i;
    }
    return 1;
}

/* The values' trigger (RFC 9110 §5.5: no CTL but HTAB), then UTF-8 under the policy.
 * py_scan_head checks the values joined with SP; each one alone is the same check:
 * UTF-8 is self-synchronising (a sequence never spans an ASCII byte, so the join is
 * well-formed exactly when every value is, a truncated last sequence included), SP is
 * refused by no policy, and every policy rule is per code point. */
static int values_are_clean(PyObject *pairs, PyObject *policy) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(pairs);
    for (Py_ssize_t i = 0; i < n; i++)
        if (!PyBytes_Check(PAIR_VALUE(pairs, i)))
            return join_error(i, PAIR_VALUE(pairs, i));
    int exact = is_exact_policy(policy);
    if (exact < 0)
        return -1;
    if (exact) {
        /* A Policy raises nothing, so the order of the checks cannot show: one pass,
         * and a short printable value (no CR, no LF, valid under every policy) needs
         * no other look. */
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *value = PAIR_VALUE(pairs, i);
            const uint8_t *p = BYTES_OF(value);
            size_t size = (size_t)PyBytes_GET_SIZE(value);
            if (!value_needs_search && size <= PRINTABLE_BYTES && is_printable(p, size))
                continue;
            if (holds_any(&value_set, p, size, 0, 0))
                return 0;
            int rc = speedups_policy_is_valid(p, size, policy);
            if (rc != 1)
                return rc;
        }
        return 1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *value = PAIR_VALUE(pairs, i);
        size_t size = (size_t)PyBytes_GET_SIZE(value);
        if (holds_any(&value_set, BYTES_OF(value), size, 0, 0))
            return 0;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *value = PAIR_VALUE(pairs, i);
        int rc = speedups_policy_is_valid(BYTES_OF(value), (size_t)PyBytes_GET_SIZE(value), policy);
        if (rc != 1)
            return rc;
    }
    return 1;
}

/* Whether the value of pairs[i] holds a needle of `set`. */
static int value_holds(PyObject *pairs, Py_ssize_t i, const needle_set *set) {
    PyObject *value = PAIR_VALUE(pairs, i);
    return holds_any(set, BYTES_OF(value), (size_t)PyBytes_GET_SIZE(value), 0, 0);
}

/* py clean_headers from the join on, over `pairs`: a list or tuple of 2-item lists
 * or tuples that nothing can change meanwhile. Sets *length and *type (borrowed,
 * NULL when absent) when clean. */
static int clean_fields(PyObject *pairs, PyObject *policy, PyObject **length,
                        PyObject **type) {
    Py_ssize_t counts[F_COUNT] = {0}, firsts[F_COUNT] = {0};
    if (PySequence_Fast_GET_SIZE(pairs) == 0)
        return 1;
    int rc = names_are_tokens(pairs, counts, firsts);
    if (rc == 1)
        rc = values_are_clean(pairs, policy);
    if (rc != 1)
        return rc;
    /* At most one line of each once-only field, none of a declined one (py
     * _field_indexes; the rules are cited at _clean.TRIGGERS). */
    for (int f = F_HOST; f < F_COUNT; f++)
        if (counts[f] > (f < F_DECLINED ? 1 : 0))
            return 0;
    /* The one value of each: none of its rules' triggers (py once_fields). */
    for (int f = F_HOST; f <= F_CONTENT_TYPE; f++)
        if (counts[f] && value_holds(pairs, firsts[f], &field_sets[f]))
            return 0;
    if (counts[F_CONTENT_LENGTH])
        *length = PAIR_VALUE(pairs, firsts[F_CONTENT_LENGTH]);
    if (counts[F_CONTENT_TYPE])
        *type = PAIR_VALUE(pairs, firsts[F_CONTENT_TYPE]);
    return 1;
}

/* Headers as servers pass them: an exact list or tuple of exact 2-item lists or
 * tuples of bytes. Reading these runs no Python code. */
static int is_plain(PyObject *headers) {
    if (!PyList_CheckExact(headers) && !PyTuple_CheckExact(headers))
        return 0;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(headers);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *pair = PySequence_Fast_ITEMS(headers)[i];
        if ((!PyTuple_CheckExact(pair) && !PyList_CheckExact(pair)) ||
            PySequence_Fast_GET_SIZE(pair) != 2 ||
            !PyBytes_Check(PAIR_NAME(headers, i)) ||
            !PyBytes_Check(PAIR_VALUE(headers, i)))
            return 0;
    }
    return 1;
}

/* isinstance(obj, list | tuple) */
static int is_list_or_tuple(PyObject *obj) {
    int rc = PyObject_IsInstance(obj, (PyObject *)&PyList_Type);
    return rc != 0 ? rc : PyObject_IsInstance(obj, (PyObject *)&PyTuple_Type);
}

/* `name, value = pair` as the interpreter unpacks it (new references). */
static int unpack_two(PyObject *pair, PyObject **name, PyObject **value) {
    if ((PyTuple_CheckExact(pair) || PyList_CheckExact(pair)) &&
        PySequence_Fast_GET_SIZE(pair) == 2) {
        *name = Py_NewRef(PySequence_Fast_ITEMS(pair)[0]);
        *value = Py_NewRef(PySequence_Fast_ITEMS(pair)[1]);
        return 0;
    }
    PyObject *iter = PyObject_GetIter(pair);
    if (iter == NULL)
        return -1;
    PyObject *got[3] = {NULL, NULL, NULL};
    int count = 0;
    while (count < 3 && (got[count] = PyIter_Next(iter)) != NULL)
        count++;
    Py_DECREF(iter);
    if (!PyErr_Occurred() && count == 2) {
        *name = got[0];
        *value = got[1];
        return 0;
    }
    if (!PyErr_Occurred() && count < 2)
        PyErr_Format(PyExc_ValueError,
                     "not enough values to unpack (expected 2, got %d)", count);
    else if (!PyErr_Occurred())
        PyErr_SetString(PyExc_ValueError, "too many values to unpack (expected 2)");
    for (int i = 0; i < count; i++)
        Py_DECREF(got[i]);
    return -1;
}

/* One turn of py clean_headers' loop: append (name, value) to `pairs`, or 0 when
 * the pair's shape or types are not what a clean head has. */
static int append_pair(PyObject *pairs, PyObject *pair) {
    int rc = is_list_or_tuple(pair);
    if (rc != 1)
        return rc;
    Py_ssize_t size = PyObject_Size(pair);
    if (size != 2)
        return size < 0 ? -1 : 0;
    PyObject *name, *value;
    if (unpack_two(pair, &name, &value) < 0)
        return -1;
    rc = PyObject_IsInstance(name, (PyObject *)&PyBytes_Type);
    if (rc == 1)
        rc = PyObject_IsInstance(value, (PyObject *)&PyBytes_Type);
    if (rc == 1) {
        PyObject *two = PyTuple_Pack(2, name, value);
        rc = two != NULL && PyList_Append(pairs, two) == 0 ? 1 : -1;
        Py_XDECREF(two);
    }
    Py_DECREF(name);
    Py_DECREF(value);
    return rc;
}

/* Headers of any other kind, walked as py clean_headers walks them, into a new list
 * of (name, value) tuples (*out) that no callback can reach. */
static int collect_pairs(PyObject *headers, PyObject **out) {
    int rc = is_list_or_tuple(headers);
    if (rc != 1)
        return rc;
    PyObject *iter = PyObject_GetIter(headers);
    PyObject *pairs = iter != NULL ? PyList_New(0) : NULL;
    if (pairs == NULL) {
        Py_XDECREF(iter);
        return -1;
    }
    PyObject *pair;
    while (rc == 1 && (pair = PyIter_Next(iter)) != NULL) {
        rc = append_pair(pairs, pair);
        Py_DECREF(pair);
    }
    Py_DECREF(iter);
    if (rc == 1 && PyErr_Occurred())
        rc = -1;
    if (rc == 1)
        *out = pairs;
    else
        Py_DECREF(pairs);
    return rc;
}

/* *owned: a list the caller releases after using *length and *type, which may
 * point into it. */
static int clean_headers(PyObject *headers, PyObject *policy, PyObject **length,
                         PyObject **type, PyObject **owned) {
    if (!tchar_loaded && load_tchar() < 0)
        return -1;
    unsigned mask;
    /* Read in place only if the policy's mask is known, or the policy is a Policy
     * (reading its mask runs no Python code): an unknown object's attributes could
     * run Python code while borrowed references are held. */
    int exact = is_exact_policy(policy);
    if (exact < 0)
        return -1;
    if (is_plain(headers) &&
        (PySequence_Fast_GET_SIZE(headers) == 0 || cached_mask(policy, &mask) ||
         (exact && mask_of(policy, &mask) == 0)))
        return clean_fields(headers, policy, length, type);
    if (PyErr_Occurred())
        return -1;
    int rc = collect_pairs(headers, owned);
    return rc == 1 ? clean_fields(*owned, policy, length, type) : rc;
}

const char speedups_scan_head_doc[] =
    "scan_head(raw_path, app_path, query, headers, path_policy, policy, "
    "header_policy, lookalike, /)\n--\n\n"
    "utf8guard.middleware.head._clean.py_scan_head, compiled: None unless the head is "
    "provably clean, else its OnceFields(content_length, content_type).";

PyObject *speedups_scan_head(PyObject *module, PyObject *const *args,
                             Py_ssize_t nargs) {
    (void)module;
    if (!speedups_arg_count("scan_head", nargs, 8))
        return NULL;
    if (once_fields_type == NULL && load_once_fields() < 0)
        return NULL;
    /* Read first, as the lanes read their Lane's (a liberty: py_scan_head reads it
     * only for a path it found clean). */
    int lookalike = PyObject_IsTrue(args[7]);
    if (lookalike < 0)
        return NULL;
    head_scan_t found = {NULL, NULL, NULL};
    int rc = speedups_scan_parts(args, args + 4, lookalike, &found);
    PyObject *result = NULL;
    if (rc == 1)
        result = new_once_fields(found.length, found.type);
    else if (rc == 0)
        result = Py_NewRef(Py_None);
    Py_XDECREF(found.owned);
    return result;
}

int speedups_scan_parts(PyObject *const parts[4], PyObject *const policies[3],
                        int lookalike, head_scan_t *found) {
    PyObject *raw_path = parts[0], *app_path = parts[1], *query = parts[2];
    if (!PyBytes_CheckExact(raw_path) || !PyBytes_CheckExact(query))
        return 0;
    if (!triggers_loaded && load_triggers() < 0)
        return -1;
    int rc = clean_path(raw_path, app_path, policies[0], lookalike);
    if (rc == 1)
        rc = clean_query(query, policies[1]);
    if (rc == 1)
        rc = clean_headers(parts[3], policies[2], &found->length, &found->type,
                           &found->owned);
    return rc;
}
