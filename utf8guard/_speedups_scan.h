/* The scan of utf8guard._speedups in plain C (no Python.h), so that the kernels can be
 * built and compared outside CPython (tests/c/test_kernels.c, also cross-compiled for
 * aarch64 and run under qemu-user). Included once, by _speedups.c or the harness.
 *
 * - scan_exact(): a byte-at-a-time reading of Table 3-7 that classifies exactly. It
 *   reads LEADS, filled from _tables.py at import, so the spec lives in one place.
 * - Filters, each picked by name (ISAS): the portable shift DFA
 *   (_speedups_portable.h, every platform), and the SIMD lookup validator of Keiser &
 *   Lemire (_speedups_kernel.h: SSE4.1, AVX2, AVX-512BW on x86-64, NEON on aarch64).
 *   A filter only says "this block may hold a violation"; scan_exact() then rereads
 *   the block from the last character boundary and decides.
 */
#ifndef UTF8GUARD_SPEEDUPS_SCAN_H
#define UTF8GUARD_SPEEDUPS_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define UTF8GUARD_X86 1
#define UTF8GUARD_SIMD 1
#include <immintrin.h>
#elif defined(_MSC_VER) && defined(_M_X64)
/* MSVC compiles every intrinsic without a target attribute; the CPU is asked with
 * cpuid (msvc_supports). Not compiled on this project's CI machines: read against
 * Microsoft's intrinsics reference only. */
#define UTF8GUARD_X86 1
#define UTF8GUARD_SIMD 1
#define UTF8GUARD_MSVC 1
#include <immintrin.h>
#include <intrin.h>
#elif defined(__aarch64__) && defined(__GNUC__)
/* Advanced SIMD is part of the AArch64 base architecture (Arm ARM A1.5): no run-time
 * check is needed. */
#define UTF8GUARD_NEON 1
#define UTF8GUARD_SIMD 1
#include <arm_neon.h>
#endif

/* Kind, in the order of utf8guard._violation.Kind (checked at import). */
enum kind {
    K_OVERLONG,
    K_SURROGATE,
    K_OUT_OF_RANGE,
    K_INVALID_BYTE,
    K_UNEXPECTED_CONTINUATION,
    K_TRUNCATED,
    K_NONCHARACTER,
    K_NUL,
    K_CONTROL,
    K_BIDI_CONTROL,
    K_PRIVATE_USE,
    K_BOM,
    K_COUNT
};

/* What a policy refuses, one bit per allow_* flag it has turned off. */
enum refuse {
    R_NONCHARACTER = 1 << 0,
    R_NUL = 1 << 1,
    R_CONTROL = 1 << 2,
    R_BIDI_CONTROL = 1 << 3,
    R_PRIVATE_USE = 1 << 4,
    R_BOM = 1 << 5,
};

/* One row of _tables.LEADS: a byte in lead position. */
typedef struct {
    uint8_t length; /* 0: never a lead; its one-byte violation is `alone` */
    uint8_t lo, hi; /* allowed second-byte range */
    int8_t below, above, alone;
} lead_t;

static lead_t LEADS[256];

typedef struct {
    int kind; /* -1: no violation */
    size_t start, end;
} found_t;

/* RFC 3629 §4: UTF8-tail = %x80-BF */
static inline int is_continuation(uint8_t b) { return b >= 0x80 && b <= 0xBF; }

/* The refused sets of _policy.py, restated with the same citations; check_sets()
 * proves them equal at import. */
static int refused_ascii(uint8_t c, unsigned mask) {
    /* U+0000 is governed by allow_nul alone. */
    if (c == 0x00)
        return (mask & R_NUL) ? K_NUL : -1;
    /* Unicode ch. 23.1: C0 less TAB, LF, CR; and DEL. */
    if ((mask & R_CONTROL) && ((c < 0x20 && c != 0x09 && c != 0x0A && c != 0x0D) ||
                               c == 0x7F))
        return K_CONTROL;
    return -1;
}

static int refused_code_point(uint32_t cp, unsigned mask) {
    /* Unicode ch. 23.7: U+FDD0..U+FDEF and U+nFFFE, U+nFFFF. */
    if ((mask & R_NONCHARACTER) && ((cp >= 0xFDD0 && cp <= 0xFDEF) ||
                                    (cp & 0xFFFE) == 0xFFFE))
        return K_NONCHARACTER;
    /* Unicode ch. 23.1: C1 controls U+0080..U+009F. */
    if ((mask & R_CONTROL) && cp <= 0x9F)
        return K_CONTROL;
    /* UAX #9 §2: ALM, LRM, RLM, LRE..RLO, LRI..PDI. */
    if ((mask & R_BIDI_CONTROL) &&
        (cp == 0x061C || cp == 0x200E || cp == 0x200F ||
         (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069)))
        return K_BIDI_CONTROL;
    /* Unicode ch. 23.5: the BMP area and planes 15, 16 less their noncharacters. */
    if ((mask & R_PRIVATE_USE) &&
        ((cp >= 0xE000 && cp <= 0xF8FF) || (cp >= 0xF0000 && (cp & 0xFFFE) != 0xFFFE)))
        return K_PRIVATE_USE;
    /* Unicode ch. 23.8: U+FEFF. */
    if ((mask & R_BOM) && cp == 0xFEFF)
        return K_BOM;
    return -1;
}

static inline int found(found_t *f, int kind, size_t start, size_t end) {
    f->kind = kind;
    f->start = start;
    f->end = end;
    return 1;
}

/* Classify exactly every character that starts in [pos, stop); the input ends at
 * `end` (a character starting before `stop` may run past it). Returns 1 with *f set
 * on the first violation, else 0 with *next = where the next character starts.
 * The hot loop of the scalar path, so one function: the ASCII run, then Table 3-7.
 */
static int scan_exact(const uint8_t *p, size_t pos, size_t stop, size_t end,
                      unsigned mask, found_t *f, size_t *next) {
    const int ascii_refused = (mask & (R_NUL | R_CONTROL)) != 0;
    while (pos < stop) {
        uint8_t c = p[pos];
        if (c < 0x80) {
            if (ascii_refused) {
                int kind = refused_ascii(c, mask);
                if (kind >= 0)
                    return found(f, kind, pos, pos + 1);
                pos++;
                continue;
            }
            /* Skip ASCII a word at a time (no byte has its top bit set). */
            pos++;
            while (pos + 8 <= stop) {
                uint64_t word;
                memcpy(&word, p + pos, 8);
                if (word & UINT64_C(0x8080808080808080))
                    break;
                pos += 8;
            }
            continue;
        }
        const lead_t *lead = &LEADS[c];
        if (lead->length == 0)
            return found(f, lead->alone, pos, pos + 1);
        if (pos + 1 == end)
            return found(f, K_TRUNCATED, pos, pos + 1);
        uint8_t second = p[pos + 1];
        if (second < lead->lo || second > lead->hi) {
            /* Table 3-7: a continuation byte outside the lead's row says what the
             * sequence would have encoded; anything else cuts it short. */
            int kind = K_TRUNCATED;
            if (is_continuation(second))
                kind = second < lead->lo ? lead->below : lead->above;
            return found(f, kind, pos, pos + 1);
        }
        /* Table 3-3: the lead keeps 5, 4 or 3 payload bits, each later byte 6. */
        uint32_t cp = (uint32_t)(c & (0x7F >> lead->length)) << 6 | (second & 0x3F);
        size_t last = pos + lead->length;
        size_t i = pos + 2;
        for (; i < last; i++) {
            if (i == end || !is_continuation(p[i]))
                return found(f, K_TRUNCATED, pos, i);
            cp = cp << 6 | (p[i] & 0x3F);
        }
        if (mask) {
            int kind = refused_code_point(cp, mask);
            if (kind >= 0)
                return found(f, kind, pos, last);
        }
        pos = last;
    }
    *next = pos;
    return 0;
}

/* Where the exact scan resumes so that it sees the character that holds p[pos].
 * Everything in [base, pos) passed a filter, so it is well-formed but for a last
 * character that may be unfinished or have a bad lead; that one starts at most 3
 * bytes back (RFC 3629 §3). Never reads p[pos], which may be past the end. */
static inline size_t boundary_before(const uint8_t *p, size_t base, size_t pos) {
    for (size_t back = 1; back <= 3 && back <= pos - base; back++) {
        uint8_t c = p[pos - back];
        if (c < 0x80)
            return pos;
        if (!is_continuation(c)) {
            size_t length = LEADS[c].length;
            return length == 0 || length > back ? pos - back : pos;
        }
    }
    return pos;
}

/* The portable filter: a shift DFA, 8 bytes at a time over ASCII. */
#include "_speedups_portable.h"

#ifdef UTF8GUARD_SIMD
/* ---------------------------------------------------------------------------------
 * SIMD filters. The kernel is written once against a small vector vocabulary and
 * instantiated for each instruction set from _speedups_kernel.h.
 */
#define BLOCK_BYTES 64

/* Keiser & Lemire (2021), lookup algorithm: error classes of a pair (prev1, input). */
enum {
    TOO_SHORT = 1 << 0,  /* 11xxxxxx then 0xxxxxxx or 11xxxxxx */
    TOO_LONG = 1 << 1,   /* 0xxxxxxx then 10xxxxxx */
    OVERLONG_3 = 1 << 2, /* 11100000 100xxxxx */
    TOO_LARGE = 1 << 3,  /* 11110100 1001xxxx, 11110100 101xxxxx, 11110101+ 10xxxxxx */
    SURROGATE = 1 << 4,  /* 11101101 101xxxxx */
    OVERLONG_2 = 1 << 5, /* 1100000x 10xxxxxx */
    TOO_LARGE_1000 = 1 << 6, /* 11110101+ 1000xxxx */
    OVERLONG_4 = 1 << 6,     /* 11110000 1000xxxx */
    TWO_CONTS = 1 << 7,      /* 10xxxxxx 10xxxxxx */
    CARRY = TOO_SHORT | TOO_LONG | TWO_CONTS,
};

/* Indexed by the high nibble of prev1. */
static const uint8_t KL_BYTE_1_HIGH[16] = {
    TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG,
    TWO_CONTS, TWO_CONTS, TWO_CONTS, TWO_CONTS,
    TOO_SHORT | OVERLONG_2,
    TOO_SHORT,
    TOO_SHORT | OVERLONG_3 | SURROGATE,
    TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4,
};

/* Indexed by the low nibble of prev1. */
static const uint8_t KL_BYTE_1_LOW[16] = {
    CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4,
    CARRY | OVERLONG_2,
    CARRY,
    CARRY,
    CARRY | TOO_LARGE,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
};

/* Indexed by the high nibble of the current byte. */
static const uint8_t KL_BYTE_2_HIGH[16] = {
    TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
    TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
    TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
};

/* A byte above its entry in the last 3 positions starts a sequence longer than the
 * bytes left: 1111xxxx needs 3 more, 111xxxxx 2, 11xxxxxx 1. */
static const uint8_t KL_MAX_TAIL[64] = {
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xF0 - 1, 0xE0 - 1, 0xC0 - 1,
};

#ifdef UTF8GUARD_X86
#define KERNEL_TARGET "sse4.1"
#define KERNEL_NAME(name) name##_sse41
#define KERNEL_WIDTH 16
#include "_speedups_kernel.h"
#undef KERNEL_TARGET
#undef KERNEL_NAME
#undef KERNEL_WIDTH

#define KERNEL_TARGET "avx2"
#define KERNEL_NAME(name) name##_avx2
#define KERNEL_WIDTH 32
#include "_speedups_kernel.h"
#undef KERNEL_TARGET
#undef KERNEL_NAME
#undef KERNEL_WIDTH

#define KERNEL_TARGET "avx512f,avx512bw"
#define KERNEL_NAME(name) name##_avx512
#define KERNEL_WIDTH 64
#include "_speedups_kernel.h"
#undef KERNEL_TARGET
#undef KERNEL_NAME
#undef KERNEL_WIDTH
#endif

#ifdef UTF8GUARD_NEON
#define KERNEL_NAME(name) name##_neon
#define KERNEL_WIDTH 16
#include "_speedups_kernel.h"
#undef KERNEL_NAME
#undef KERNEL_WIDTH
#endif
#endif /* UTF8GUARD_SIMD */

typedef int (*scan_t)(const uint8_t *p, size_t pos, size_t end, unsigned mask,
                      found_t *f);

typedef struct {
    const char *name;
    scan_t scan;
} isa_t;

/* Slowest first; the default is the last one the CPU supports. */
static const isa_t ISAS[] = {
    {"scalar", scan_portable},
#ifdef UTF8GUARD_X86
    {"sse4.1", scan_sse41},
    {"avx2", scan_avx2},
    {"avx512", scan_avx512},
#endif
#ifdef UTF8GUARD_NEON
    {"neon", scan_neon},
#endif
};
#define ISA_COUNT ((int)(sizeof ISAS / sizeof ISAS[0]))

#ifdef UTF8GUARD_MSVC
/* Intel SDM Vol. 2A, CPUID: leaf 1 ECX bit 19 SSE4.1, bit 27 OSXSAVE; leaf 7 EBX bit 5
 * AVX2, bit 16 AVX512F, bit 30 AVX512BW; XGETBV(0) bits 1-2 (SSE and AVX state) and
 * 5-7 (AVX-512 state) set when the OS saves those registers. */
static int msvc_supports(const char *name) {
    int leaf0[4], leaf1[4], leaf7[4] = {0, 0, 0, 0};
    __cpuid(leaf0, 0);
    __cpuid(leaf1, 1);
    if (strcmp(name, "sse4.1") == 0)
        return (leaf1[2] >> 19) & 1;
    if (!((leaf1[2] >> 27) & 1) || leaf0[0] < 7)
        return 0;
    unsigned long long xcr0 = _xgetbv(0);
    __cpuidex(leaf7, 7, 0);
    int avx_state = (xcr0 & 0x6) == 0x6;
    if (strcmp(name, "avx2") == 0)
        return avx_state && ((leaf7[1] >> 5) & 1);
    return avx_state && (xcr0 & 0xE0) == 0xE0 && ((leaf7[1] >> 16) & 1) &&
           ((leaf7[1] >> 30) & 1);
}
#endif

static int isa_supported(int index) {
    if (index < 0 || index >= ISA_COUNT)
        return 0;
#ifdef UTF8GUARD_MSVC
    if (index > 0)
        return msvc_supports(ISAS[index].name);
#elif defined(UTF8GUARD_X86)
    const char *name = ISAS[index].name;
    __builtin_cpu_init();
    if (strcmp(name, "sse4.1") == 0)
        return __builtin_cpu_supports("sse4.1");
    if (strcmp(name, "avx2") == 0)
        return __builtin_cpu_supports("avx2");
    if (strcmp(name, "avx512") == 0)
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
#endif
    return 1;
}

#endif
