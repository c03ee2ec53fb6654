/* The SIMD scan, included by _speedups_scan.h once per instruction set with
 * KERNEL_TARGET (a GCC target name; none for NEON, which every AArch64 CPU has),
 * KERNEL_NAME(name) (a suffixed name) and KERNEL_WIDTH (16 for SSE4.1 and NEON, 32
 * for AVX2, 64 for AVX-512BW) defined. Only the
 * vector vocabulary below differs between them; the default build flags stay
 * portable because each function carries its own target attribute and runs only
 * after a CPU check.
 *
 * Algorithm: the "lookup" validator of Keiser & Lemire (2021), as in simdjson and
 * simdutf: three 16-entry tables indexed by the high nibble of the previous byte, its
 * low nibble and the high nibble of the current byte; their AND is nonzero where a
 * two-byte pattern is ill-formed, and a saturating subtraction checks that the third
 * and fourth bytes of 3- and 4-byte sequences are continuations.
 */
#if defined(KERNEL_TARGET) && !defined(UTF8GUARD_MSVC)
#define TARGET __attribute__((target(KERNEL_TARGET)))
#else
#define TARGET /* NEON is baseline on AArch64; MSVC needs no target for intrinsics */
#endif
#ifdef UTF8GUARD_MSVC
#define NOINLINE __declspec(noinline)
#else
#define NOINLINE __attribute__((noinline))
#endif
#define LANES (BLOCK_BYTES / KERNEL_WIDTH)

#ifdef UTF8GUARD_NEON
/* AArch64 Advanced SIMD, as in simdutf's arm64 kernel: vqtbl1q_u8 is the nibble
 * lookup (indexes here are 0..15, so its zeroing of larger ones never applies). */
#define V uint8x16_t
#define V_LOAD(p) vld1q_u8((const uint8_t *)(p))
#define V_TABLE(p) vld1q_u8(p)
#define V_SET1(x) vdupq_n_u8((uint8_t)(x))
#define V_ZERO() vdupq_n_u8(0)
#define V_AND(a, b) vandq_u8((a), (b))
#define V_OR(a, b) vorrq_u8((a), (b))
#define V_XOR(a, b) veorq_u8((a), (b))
/* ~a & b, as x86's andnot */
#define V_ANDNOT(a, b) vbicq_u8((b), (a))
#define V_EQ(a, b) vceqq_u8((a), (b))
#define V_MIN(a, b) vminq_u8((a), (b))
#define V_MAX(a, b) vmaxq_u8((a), (b))
#define V_SUBS(a, b) vqsubq_u8((a), (b))
#define V_SHUFFLE(t, i) vqtbl1q_u8((t), (i))
/* Only ever masked with 0x0F afterwards, so a per-byte shift does. */
#define V_SRL16(a, n) vshrq_n_u8((a), (n))
#define V_ANY(a) (vmaxvq_u8(a) != 0)
/* Only tested against zero: nonzero when some byte has its top bit set. */
#define V_HIGH_BITS(a) (vmaxvq_u8(a) >> 7)
#define V_PREV(in, prev, n) vextq_u8((prev), (in), 16 - (n))
#elif KERNEL_WIDTH == 16
#define V __m128i
#define V_LOAD(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define V_TABLE(p) V_LOAD(p)
#define V_SET1(x) _mm_set1_epi8((char)(x))
#define V_ZERO() _mm_setzero_si128()
#define V_AND(a, b) _mm_and_si128((a), (b))
#define V_OR(a, b) _mm_or_si128((a), (b))
#define V_XOR(a, b) _mm_xor_si128((a), (b))
#define V_ANDNOT(a, b) _mm_andnot_si128((a), (b))
#define V_EQ(a, b) _mm_cmpeq_epi8((a), (b))
#define V_MIN(a, b) _mm_min_epu8((a), (b))
#define V_MAX(a, b) _mm_max_epu8((a), (b))
#define V_SUBS(a, b) _mm_subs_epu8((a), (b))
#define V_SHUFFLE(t, i) _mm_shuffle_epi8((t), (i))
#define V_SRL16(a, n) _mm_srli_epi16((a), (n))
#define V_ANY(a) (!_mm_testz_si128((a), (a)))
#define V_HIGH_BITS(a) _mm_movemask_epi8(a)
/* The input shifted right by n bytes, the gap filled from the previous vector. */
#define V_PREV(in, prev, n) _mm_alignr_epi8((in), (prev), 16 - (n))
#elif KERNEL_WIDTH == 64
#define V __m512i
#define V_LOAD(p) _mm512_loadu_si512((const void *)(p))
#define V_TABLE(p) _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(p)))
#define V_SET1(x) _mm512_set1_epi8((char)(x))
#define V_ZERO() _mm512_setzero_si512()
#define V_AND(a, b) _mm512_and_si512((a), (b))
#define V_OR(a, b) _mm512_or_si512((a), (b))
#define V_XOR(a, b) _mm512_xor_si512((a), (b))
#define V_ANDNOT(a, b) _mm512_andnot_si512((a), (b))
/* Comparisons give a bit mask; widen it back to a byte vector. */
#define V_EQ(a, b) _mm512_movm_epi8(_mm512_cmpeq_epi8_mask((a), (b)))
#define V_MIN(a, b) _mm512_min_epu8((a), (b))
#define V_MAX(a, b) _mm512_max_epu8((a), (b))
#define V_SUBS(a, b) _mm512_subs_epu8((a), (b))
#define V_SHUFFLE(t, i) _mm512_shuffle_epi8((t), (i))
#define V_SRL16(a, n) _mm512_srli_epi16((a), (n))
#define V_ANY(a) (_mm512_test_epi8_mask((a), (a)) != 0)
#define V_HIGH_BITS(a) _mm512_movepi8_mask(a)
/* alignr works within 128-bit lanes: pair each lane with the one before (for lane 0,
 * the previous vector's last), qwords 6, 7 of prev then 0..5 of in. */
#define V_LANE_BEFORE _mm512_setr_epi64(6, 7, 8, 9, 10, 11, 12, 13)
#define V_PREV(in, prev, n)                                                            \
    _mm512_alignr_epi8((in), _mm512_permutex2var_epi64((prev), V_LANE_BEFORE, (in)),   \
                       16 - (n))
#else
#define V __m256i
#define V_LOAD(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define V_TABLE(p) _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(p)))
#define V_SET1(x) _mm256_set1_epi8((char)(x))
#define V_ZERO() _mm256_setzero_si256()
#define V_AND(a, b) _mm256_and_si256((a), (b))
#define V_OR(a, b) _mm256_or_si256((a), (b))
#define V_XOR(a, b) _mm256_xor_si256((a), (b))
#define V_ANDNOT(a, b) _mm256_andnot_si256((a), (b))
#define V_EQ(a, b) _mm256_cmpeq_epi8((a), (b))
#define V_MIN(a, b) _mm256_min_epu8((a), (b))
#define V_MAX(a, b) _mm256_max_epu8((a), (b))
#define V_SUBS(a, b) _mm256_subs_epu8((a), (b))
#define V_SHUFFLE(t, i) _mm256_shuffle_epi8((t), (i))
#define V_SRL16(a, n) _mm256_srli_epi16((a), (n))
#define V_ANY(a) (!_mm256_testz_si256((a), (a)))
#define V_HIGH_BITS(a) _mm256_movemask_epi8(a)
/* alignr works within 128-bit lanes, so first pair each lane with the one before. */
#define V_PREV(in, prev, n)                                                            \
    _mm256_alignr_epi8((in), _mm256_permute2x128_si256((prev), (in), 0x21), 16 - (n))
#endif

#define V_IS(a, x) V_EQ((a), V_SET1(x))
/* lo <= a <= hi, unsigned */
#define V_IN(a, lo, hi) V_EQ(V_MIN(V_MAX((a), V_SET1(lo)), V_SET1(hi)), (a))

/* Ill-formed pairs (prev1, input) and missing third/fourth continuation bytes; see
 * the tables in _speedups.c. */
static inline TARGET V KERNEL_NAME(errors)(V input, V prev1, V prev2, V prev3) {
    const V low_nibble = V_SET1(0x0F);
    V prev1_high = V_AND(V_SRL16(prev1, 4), low_nibble);
    V input_high = V_AND(V_SRL16(input, 4), low_nibble);
    V byte_1_high = V_SHUFFLE(V_TABLE(KL_BYTE_1_HIGH), prev1_high);
    V byte_1_low = V_SHUFFLE(V_TABLE(KL_BYTE_1_LOW), V_AND(prev1, low_nibble));
    V byte_2_high = V_SHUFFLE(V_TABLE(KL_BYTE_2_HIGH), input_high);
    V special = V_AND(V_AND(byte_1_high, byte_1_low), byte_2_high);
    /* Only 111xxxxx two back or 1111xxxx three back leave the top bit set. */
    V third = V_SUBS(prev2, V_SET1(0xE0 - 0x80));
    V fourth = V_SUBS(prev3, V_SET1(0xF0 - 0x80));
    V must_continue = V_AND(V_OR(third, fourth), V_SET1(0x80));
    return V_XOR(must_continue, special);
}

/* Bytes that may end a noncharacter; a superset, the exact scan decides. */
static inline TARGET V KERNEL_NAME(noncharacters)(V input, V prev1, V prev2) {
    /* U+nFFFE, U+nFFFF end in BF BE or BF BF (EF BF BE..BF; F0..F4 x8F/x9F/xAF/xBF
     * BF BE..BF). Two bytes AND to BE or more only if both are BE or BF (or both
     * leads, which the validator already flags), so the saturating subtraction is
     * nonzero there and for BE BE, BE BF. */
    V tail = V_SUBS(V_AND(prev1, input), V_SET1(0xBD));
    /* U+FDD0..U+FDEF are EF B7 90..AF. */
    V fdd0 = V_AND(V_IS(prev2, 0xEF), V_IS(prev1, 0xB7));
    return V_OR(tail, fdd0);
}

/* The same, sharper: a BF BE..BF pair counts only two bytes after EF or after a
 * 4-byte sequence's second byte 8F, 9F, AF or BF (all 10xx1111), and EF B7 only
 * before 90..AF. Still a superset. On every block it would cost about a third more
 * time (non-ASCII text 9.1 -> 7.0 GB/s), so it runs only on blocks the fast test
 * flagged, where text dense in other BF BE pairs (U+4FFE is E4 BF BE) or EF B7
 * (U+FDCF is EF B7 8F) would otherwise send every block to the byte scan. */
static inline TARGET V KERNEL_NAME(noncharacters_sharp)(V input, V prev1, V prev2) {
    V tail = V_SUBS(V_AND(prev1, input), V_SET1(0xBD));
    V ef = V_IS(prev2, 0xEF);
    V second = V_IS(V_AND(prev2, V_SET1(0xCF)), 0x8F);
    V fdd0 = V_AND(V_AND(ef, V_IS(prev1, 0xB7)), V_IN(input, 0x90, 0xAF));
    return V_OR(V_AND(tail, V_OR(ef, second)), fdd0);
}

/* Bytes that may end (or, for private use, continue) a code point the policy
 * refuses beyond the noncharacters. A superset: the exact scan decides. Byte
 * patterns from Table 3-7 applied to the sets in _policy.py. */
static inline TARGET V KERNEL_NAME(candidates)(V input, V prev1, V prev2,
                                               unsigned mask) {
    V out = V_ZERO();
    if (mask & R_NUL)
        out = V_OR(out, V_IS(input, 0x00));
    if (mask & R_CONTROL) {
        /* 01..08, 0B, 0C, 0E..1F, 7F, and C1 U+0080..U+009F = C2 80..9F. */
        V text = V_OR(V_OR(V_IS(input, 0x00), V_IS(input, 0x09)),
                      V_OR(V_IS(input, 0x0A), V_IS(input, 0x0D)));
        out = V_OR(out, V_ANDNOT(text, V_IN(input, 0x00, 0x1F)));
        out = V_OR(out, V_IS(input, 0x7F));
        out = V_OR(out, V_AND(V_IS(prev1, 0xC2), V_IN(input, 0x80, 0x9F)));
    }
    if (mask & R_BIDI_CONTROL) {
        /* U+061C = D8 9C; U+200E, U+200F = E2 80 8E..8F; U+202A..U+202E =
         * E2 80 AA..AE; U+2066..U+2069 = E2 81 A6..A9. */
        V e2 = V_IS(prev2, 0xE2);
        V in_2000 = V_AND(V_AND(e2, V_IS(prev1, 0x80)),
                          V_OR(V_IN(input, 0x8E, 0x8F), V_IN(input, 0xAA, 0xAE)));
        V in_2040 = V_AND(V_AND(e2, V_IS(prev1, 0x81)), V_IN(input, 0xA6, 0xA9));
        V alm = V_AND(V_IS(prev1, 0xD8), V_IS(input, 0x9C));
        out = V_OR(out, V_OR(V_OR(in_2000, in_2040), alm));
    }
    if (mask & R_PRIVATE_USE) {
        /* Flagged at the second byte: U+E000..U+F8FF = EE xx xx, EF 80..A3 xx;
         * U+F0000..U+10FFFF = F3 B0..BF xx xx, F4 xx xx xx. */
        V bmp = V_OR(V_IS(prev1, 0xEE),
                     V_AND(V_IS(prev1, 0xEF), V_IN(input, 0x80, 0xA3)));
        V planes = V_OR(V_AND(V_IS(prev1, 0xF3), V_IN(input, 0xB0, 0xBF)),
                        V_IS(prev1, 0xF4));
        out = V_OR(out, V_OR(bmp, planes));
    }
    if (mask & R_BOM)
        /* U+FEFF = EF BB BF */
        out = V_OR(out, V_AND(V_IS(prev2, 0xEF), V_IS(prev1, 0xBB)));
    return out;
}

/* A block the fast filter flagged, again with the sharper noncharacter test:
 * nonzero when it may still hold a violation. `before` is the vector before it. */
static TARGET NOINLINE int KERNEL_NAME(block_sharp)(
    const uint8_t *block, V before, unsigned mask) {
    V err = V_ZERO();
    for (int k = 0; k < LANES; k++) {
        V in = V_LOAD(block + k * KERNEL_WIDTH);
        V prev1 = V_PREV(in, before, 1);
        V prev2 = V_PREV(in, before, 2);
        V prev3 = V_PREV(in, before, 3);
        err = V_OR(err, KERNEL_NAME(errors)(in, prev1, prev2, prev3));
        err = V_OR(err, KERNEL_NAME(noncharacters_sharp)(in, prev1, prev2));
        if (mask & ~(unsigned)R_NONCHARACTER)
            err = V_OR(err, KERNEL_NAME(candidates)(in, prev1, prev2, mask));
        before = in;
    }
    return V_ANY(err);
}

/* One 64-byte block: nonzero when it may hold a violation. *prev carries the last
 * vector of the block before (zero at a character boundary) and then of this one. */
static inline TARGET int KERNEL_NAME(block)(const uint8_t *block, V *prev,
                                            unsigned mask, int ascii_refused) {
    V in[LANES];
    V any = V_ZERO();
    for (int k = 0; k < LANES; k++) {
        in[k] = V_LOAD(block + k * KERNEL_WIDTH);
        any = V_OR(any, in[k]);
    }
    if (!ascii_refused && V_HIGH_BITS(any) == 0) {
        /* All ASCII: fine unless the block before ended inside a sequence, with a
         * lead in its last 3 bytes that needs more bytes than remain there. */
        V tail_max = V_LOAD(KL_MAX_TAIL + sizeof KL_MAX_TAIL - KERNEL_WIDTH);
        int flagged = V_ANY(V_SUBS(*prev, tail_max));
        *prev = in[LANES - 1];
        return flagged;
    }
    V err = V_ZERO();
    V before = *prev;
    for (int k = 0; k < LANES; k++) {
        V prev1 = V_PREV(in[k], before, 1);
        V prev2 = V_PREV(in[k], before, 2);
        V prev3 = V_PREV(in[k], before, 3);
        err = V_OR(err, KERNEL_NAME(errors)(in[k], prev1, prev2, prev3));
        if (mask & R_NONCHARACTER)
            err = V_OR(err, KERNEL_NAME(noncharacters)(in[k], prev1, prev2));
        if (mask & ~(unsigned)R_NONCHARACTER)
            err = V_OR(err, KERNEL_NAME(candidates)(in[k], prev1, prev2, mask));
        before = in[k];
    }
    V first = *prev;
    *prev = before;
    if (!V_ANY(err))
        return 0;
    /* Flagged: ask again with the sharper noncharacter test before the byte scan. */
    return !(mask & R_NONCHARACTER) || KERNEL_NAME(block_sharp)(block, first, mask);
}

/* The first violation in p[pos:end]: filter blocks, classify exactly where flagged. */
static TARGET int KERNEL_NAME(scan)(const uint8_t *p, size_t pos, size_t end,
                                    unsigned mask, found_t *f) {
    const int ascii_refused = (mask & (R_NUL | R_CONTROL)) != 0;
    size_t base = pos; /* a character boundary; the filter's state starts here */
    size_t next;
    V prev = V_ZERO();
    while (end - pos >= BLOCK_BYTES) {
        if (!KERNEL_NAME(block)(p + pos, &prev, mask, ascii_refused)) {
            pos += BLOCK_BYTES;
            continue;
        }
        if (scan_exact(p, boundary_before(p, base, pos), pos + BLOCK_BYTES, end, mask,
                       f, &next))
            return 1;
        /* next is a character boundary: restart the filter there, as at the start. */
        pos = base = next;
        prev = V_ZERO();
    }
    /* The tail, in a block padded with spaces: no policy refuses U+0020, and as a
     * non-continuation byte it cuts short a sequence left unfinished at the end,
     * which the filter then flags. */
    uint8_t tail[BLOCK_BYTES];
    memset(tail, ' ', sizeof tail);
    memcpy(tail, p + pos, end - pos);
    if (!KERNEL_NAME(block)(tail, &prev, mask, ascii_refused))
        return 0;
    return scan_exact(p, boundary_before(p, base, pos), end, end, mask, f, &next);
}

#undef TARGET
#undef NOINLINE
#undef LANES
#undef V
#undef V_LOAD
#undef V_TABLE
#undef V_SET1
#undef V_ZERO
#undef V_AND
#undef V_OR
#undef V_XOR
#undef V_ANDNOT
#undef V_EQ
#undef V_MIN
#undef V_MAX
#undef V_SUBS
#undef V_SHUFFLE
#undef V_SRL16
#undef V_ANY
#undef V_HIGH_BITS
#undef V_PREV
#undef V_LANE_BEFORE
#undef V_IS
#undef V_IN
