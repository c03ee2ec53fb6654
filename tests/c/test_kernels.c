/* Every kernel of utf8guard._speedups against the exact scan, outside CPython.
 *
 * Built natively and, with an aarch64 cross compiler, for arm64 under qemu-user
 * (`make test-kernels`), so the NEON kernel is checked on every CI run without arm64
 * hardware. Each supported instruction set's scan must return exactly what
 * scan_exact() (the byte-at-a-time reading of Table 3-7 that the Python tests check
 * against utf8guard.reference and CPython) returns, for every policy mask, on:
 * - every lead byte x second byte, with two more continuation bytes, cut at every
 *   length, at every offset up to 2 blocks (across the 8, 16, 32, 64-byte edges);
 * - every code point's encoding (noncharacters, surrogates' neighbours, every
 *   refused set) at offsets before, across and after a 64-byte block edge;
 * - seeded random mixes of valid characters, near-misses and random bytes.
 * Exit status 0 when all agree; otherwise the first disagreements are printed.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../utf8guard/_speedups_scan.h"

#define MASKS 64 /* every combination of enum refuse */

static long failures;

/* LEADS as Unicode 15.0 Table 3-7 gives it (utf8guard/_tables.py builds the same
 * rows from the same table; the Python tests compare that one with CPython). */
static void fill_leads(void) {
    for (int b = 0; b < 256; b++) {
        lead_t *lead = &LEADS[b];
        lead->lo = 0x80;
        lead->hi = 0xBF;
        lead->below = lead->above = lead->alone = -1;
        if (b <= 0x7F) {
            lead->length = 1;
        } else if (b <= 0xBF) {
            lead->alone = K_UNEXPECTED_CONTINUATION;
        } else if (b <= 0xC1) {
            lead->alone = K_OVERLONG;
        } else if (b <= 0xF4) {
            lead->length = b <= 0xDF ? 2 : b <= 0xEF ? 3 : 4;
            lead->below = lead->above = K_TRUNCATED;
            if (b == 0xE0)
                lead->lo = 0xA0, lead->below = K_OVERLONG;
            if (b == 0xED)
                lead->hi = 0x9F, lead->above = K_SURROGATE;
            if (b == 0xF0)
                lead->lo = 0x90, lead->below = K_OVERLONG;
            if (b == 0xF4)
                lead->hi = 0x8F, lead->above = K_OUT_OF_RANGE;
        } else {
            lead->alone = b <= 0xFD ? K_OUT_OF_RANGE : K_INVALID_BYTE;
        }
    }
}

static void dump(const char *isa, const uint8_t *p, size_t n, unsigned mask, int want,
                 const found_t *w, int got, const found_t *g) {
    if (++failures > 10)
        return;
    printf("FAIL %s mask=%02x: want %d (%d [%zu,%zu)) got %d (%d [%zu,%zu)) on", isa,
           mask, want, want ? w->kind : -1, want ? w->start : 0, want ? w->end : 0,
           got, got ? g->kind : -1, got ? g->start : 0, got ? g->end : 0);
    for (size_t i = 0; i < n && i < 160; i++)
        printf(" %02x", p[i]);
    printf("\n");
}

/* Every supported kernel's answer on p[0:n] under mask must be scan_exact's. */
static void check(const uint8_t *p, size_t n, unsigned mask) {
    found_t want = {-1, 0, 0}, got;
    size_t next;
    int hit = scan_exact(p, 0, n, n, mask, &want, &next);
    for (int i = 0; i < ISA_COUNT; i++) {
        if (!isa_supported(i))
            continue;
        got.kind = -1;
        int found_hit = ISAS[i].scan(p, 0, n, mask, &got);
        if (found_hit != hit || (hit && (got.kind != want.kind ||
                                         got.start != want.start ||
                                         got.end != want.end)))
            dump(ISAS[i].name, p, n, mask, hit, &want, found_hit, &got);
    }
}

/* RFC 3629 §3: the UTF-8 encoding of cp (surrogates too: they are ill-formed). */
static size_t encode(uint32_t cp, uint8_t *out) {
    if (cp < 0x80) {
        out[0] = (uint8_t)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (uint8_t)(0xC0 | cp >> 6);
        out[1] = (uint8_t)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (uint8_t)(0xE0 | cp >> 12);
        out[1] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
        out[2] = (uint8_t)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (uint8_t)(0xF0 | cp >> 18);
    out[1] = (uint8_t)(0x80 | (cp >> 12 & 0x3F));
    out[2] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
    out[3] = (uint8_t)(0x80 | (cp & 0x3F));
    return 4;
}

#define BUF 512

/* Lead x second byte (and two continuation bytes), cut at every length, after
 * `offset` bytes of filler (ASCII 'a' or a 2-byte character), then ASCII. */
static void pairs(void) {
    uint8_t buf[BUF];
    /* Each side of the word (8), vector (16, 32) and block (64) edges. */
    static const size_t offsets[] = {0,  1,  2,  3,  5,  7,  8,  13, 14, 15, 16,  17, 29,
                                     30, 31, 32, 33, 60, 61, 62, 63, 64, 65, 127, 128};
    for (int lead = 0x80; lead < 0x100; lead++)
        for (int second = 0; second < 0x100; second++)
            for (size_t k = 0; k < sizeof offsets / sizeof offsets[0]; k++)
                for (size_t cut = 1; cut <= 4; cut++) {
                    size_t offset = offsets[k];
                    memset(buf, 'a', BUF);
                    if (offset % 3 == 1)
                        for (size_t i = 0; i + 1 < offset; i += 2)
                            buf[i] = 0xC3, buf[i + 1] = 0xA9; /* U+00E9 */
                    uint8_t seq[4] = {(uint8_t)lead, (uint8_t)second, 0x80, 0x80};
                    memcpy(buf + offset, seq, cut);
                    size_t tail = (size_t)(lead + second) % 70;
                    check(buf, offset + cut, 1);
                    check(buf, offset + cut + tail, (unsigned)(second % MASKS));
                }
}

/* Every code point at offsets around the 64-byte block edge, STRICT and all-refused;
 * every 61st under every mask. */
static void code_points(void) {
    uint8_t buf[BUF];
    static const size_t offsets[] = {62, 0, 7, 15, 30, 61, 63, 64, 126};
    for (uint32_t cp = 0; cp <= 0x10FFFF; cp++) {
        /* Across the block edge always, and one other offset in turn. */
        for (size_t k = 0; k < 2; k++) {
            size_t offset = offsets[k ? 1 + cp % 8 : 0];
            memset(buf, ' ', BUF);
            size_t n = offset + encode(cp, buf + offset);
            check(buf, n, 1);
            check(buf, n + 70, MASKS - 1);
            if (cp % 61 == 0)
                for (unsigned mask = 0; mask < MASKS; mask++)
                    check(buf, n + 3, mask);
        }
    }
}

static uint64_t rng = 0x9E3779B97F4A7C15u;
static uint32_t next_random(void) { /* xorshift64* */
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (uint32_t)((rng * 0x2545F4914F6CDD1Du) >> 32);
}

/* Mostly valid text from a few alphabets, with noncharacters, refused code points,
 * cut sequences and random bytes spliced in. */
static void random_mixes(long rounds) {
    static const uint32_t alphabet[] = {
        'a',     ' ',     '\n',    0x00,    0x1B,    0x7F,    0xE9,    0x85,   0x9F,
        0x061C,  0x0416,  0x0915,  0x200E,  0x202E,  0x2069,  0x20AC,  0x4E2D, 0x4FFE,
        0xD7FF,  0xE000,  0xF8FF,  0xFDCF,  0xFDD0,  0xFDEF,  0xFDF0,  0xFEFF, 0xFF0C,
        0xFFE5,  0xFFFD,  0xFFFE,  0xFFFF,  0x10000, 0x1F600, 0x1FFFE, 0x2FFFF,
        0xE0067, 0xEFFFF, 0xF0000, 0xFFFFD, 0x10FFFD, 0x10FFFF,
    };
    const size_t letters = sizeof alphabet / sizeof alphabet[0];
    uint8_t buf[BUF];
    for (long round = 0; round < rounds; round++) {
        size_t n = 0, target = next_random() % 300;
        while (n + 4 < target) {
            uint32_t r = next_random();
            if (r % 23 == 0) {
                buf[n++] = (uint8_t)(r >> 8);
            } else if (r % 29 == 0) {
                size_t len = encode(0x800 + (r >> 8) % 0x10F800, buf + n);
                n += 1 + (r >> 5) % (len - 1); /* a cut sequence */
            } else {
                n += encode(r % 7 ? alphabet[(r >> 8) % letters] : (r >> 8) % 0x110000,
                            buf + n);
            }
        }
        check(buf, n, next_random() % MASKS);
        check(buf, n, 1);
    }
}

int main(int argc, char **argv) {
    long rounds = argc > 1 ? atol(argv[1]) : 200000;
    fill_leads();
    dfa_build();
    printf("test_kernels: instruction sets");
    for (int i = 0; i < ISA_COUNT; i++)
        if (isa_supported(i))
            printf(" %s", ISAS[i].name);
    printf("\n");
    pairs();
    code_points();
    random_mixes(rounds);
    if (failures) {
        printf("test_kernels: %ld disagreements with the exact scan\n", failures);
        return 1;
    }
    printf("test_kernels: every kernel agrees with the exact scan\n");
    return 0;
}
