/* The portable filter ("scalar": no vector instructions), included by
 * _speedups_scan.h after scan_exact() and boundary_before().
 *
 * A shift DFA (the layout of the Rust core's and Björn Höhrmann's UTF-8 automata,
 * packed as in Per Vognsen's "shift-based DFAs"): each state is a bit offset, a
 * multiple of 6, and DFA[byte] holds every state's successor at that state's offset,
 * so one step is `state = DFA[byte] >> state`. The load does not depend on the state
 * and the shift takes a cycle, so the chain runs near a byte per cycle; ASCII after a
 * character boundary is skipped 8 bytes at a time.
 *
 * Like the SIMD filters it only says "this span may hold a violation": S_FLAG is
 * reached by every ill-formed sequence (Table 3-7) and every noncharacter (Unicode
 * ch. 23.7), and also by a few well-formed rarities (planes 4-16, U+FFD0..U+FFEF,
 * U+FDFE, U+FDFF); scan_exact() rereads the span and decides. Policies that refuse
 * NUL or controls (ASCII bytes) take scan_exact() throughout; bidi controls, private
 * use and the BOM are caught by lead-byte flags in the top bits of DFA[byte].
 */

/* States, in units of DFA_SHIFT bits. */
enum {
    S_ACCEPT,   /* at a character boundary */
    S_FLAG,     /* a possible violation: stays here */
    S_TAIL1,    /* one more continuation byte, any */
    S_TAIL2,    /* two more, any */
    S_E0,       /* after E0: A0..BF, then one more (below is overlong) */
    S_ED,       /* after ED: 80..9F, then one more (above is a surrogate) */
    S_EF,       /* after EF: B7 and BF may start a noncharacter */
    S_F0,       /* after F0: 90..BF, then two more (below is overlong) */
    S_F0_TAIL2, /* after F0 xx: BF may start U+nFFFE or U+nFFFF */
    S_NONCHAR,  /* after EF B7, EF BF or F0 xx BF: the noncharacters' last bytes */
    S_COUNT
};
#define DFA_SHIFT 6
#define DFA_STATE_MASK ((uint64_t)63)
/* Lead-byte flags above the 60 state bits: bit DFA_FLAGS + i is refusal bit i of
 * enum refuse (only R_BIDI_CONTROL, R_PRIVATE_USE and R_BOM are used). */
#define DFA_FLAGS 57
#define DFA_FLAGGED (R_BIDI_CONTROL | R_PRIVATE_USE | R_BOM)

static uint64_t DFA[256];

static void dfa_edge(int from, int lo, int hi, int to) {
    for (int b = lo; b <= hi; b++) {
        DFA[b] &= ~(DFA_STATE_MASK << (from * DFA_SHIFT));
        DFA[b] |= (uint64_t)(to * DFA_SHIFT) << (from * DFA_SHIFT);
    }
}

/* Build DFA from LEADS (call after LEADS is filled). Every edge not set here goes to
 * S_FLAG, so a lead whose row this does not recognise is always rescanned exactly. */
static void dfa_build(void) {
    for (int b = 0; b < 256; b++)
        DFA[b] = 0;
    for (int s = 0; s < S_COUNT; s++)
        dfa_edge(s, 0x00, 0xFF, S_FLAG);
    for (int b = 0; b < 256; b++) {
        const lead_t *lead = &LEADS[b];
        int to = S_FLAG;
        int whole = lead->lo == 0x80 && lead->hi == 0xBF;
        if (lead->length == 1)
            to = S_ACCEPT;
        else if (lead->length == 2 && whole)
            to = S_TAIL1;
        else if (lead->length == 3 && whole)
            to = b == 0xEF ? S_EF : S_TAIL2;
        else if (lead->length == 3 && lead->lo == 0xA0 && lead->hi == 0xBF)
            to = S_E0;
        else if (lead->length == 3 && lead->lo == 0x80 && lead->hi == 0x9F)
            to = S_ED;
        else if (lead->length == 4 && lead->lo == 0x90 && lead->hi == 0xBF)
            to = S_F0;
        /* F1..F4 (planes 4-16, rare in text) stay on S_FLAG. */
        dfa_edge(S_ACCEPT, b, b, to);
    }
    /* RFC 3629 §4: UTF8-tail = %x80-BF. */
    dfa_edge(S_TAIL1, 0x80, 0xBF, S_ACCEPT);
    dfa_edge(S_TAIL2, 0x80, 0xBF, S_TAIL1);
    dfa_edge(S_E0, 0xA0, 0xBF, S_TAIL1);
    dfa_edge(S_ED, 0x80, 0x9F, S_TAIL1);
    dfa_edge(S_F0, 0x90, 0xBF, S_F0_TAIL2);
    /* Unicode ch. 23.7: U+FDD0..U+FDEF = EF B7 90..AF; U+FFFE, U+FFFF = EF BF BE..BF;
     * U+nFFFE, U+nFFFF in plane n = F0..F4 xx BF BE..BF. */
    dfa_edge(S_EF, 0x80, 0xBF, S_TAIL1);
    dfa_edge(S_EF, 0xB7, 0xB7, S_NONCHAR);
    dfa_edge(S_EF, 0xBF, 0xBF, S_NONCHAR);
    dfa_edge(S_F0_TAIL2, 0x80, 0xBF, S_TAIL1);
    dfa_edge(S_F0_TAIL2, 0xBF, 0xBF, S_NONCHAR);
    dfa_edge(S_NONCHAR, 0x80, 0x8F, S_ACCEPT);
    dfa_edge(S_NONCHAR, 0xB0, 0xBD, S_ACCEPT);
    /* Leads of the sets the flags stand for (the refused code points' encodings,
     * Table 3-6): UAX #9 §2 bidi controls U+061C = D8 9C, U+200E..U+2069 = E2 80..81
     * xx; ch. 23.5 private use U+E000..U+F8FF = EE xx xx, EF 80..A3 xx, planes 15-16 =
     * F3 B0..BF, F4 (also on S_FLAG); ch. 23.8 the BOM U+FEFF = EF BB BF. */
    DFA[0xD8] |= (uint64_t)R_BIDI_CONTROL << DFA_FLAGS;
    DFA[0xE2] |= (uint64_t)R_BIDI_CONTROL << DFA_FLAGS;
    DFA[0xEE] |= (uint64_t)R_PRIVATE_USE << DFA_FLAGS;
    DFA[0xEF] |= (uint64_t)(R_PRIVATE_USE | R_BOM) << DFA_FLAGS;
}

#define HIGH_BITS UINT64_C(0x8080808080808080)

/* One step. Shifts take their count modulo 64 on x86-64 and AArch64, so the mask
 * costs no instruction there; only the last state is masked for real. */
#define DFA_STEP(byte)                                                                \
    do {                                                                              \
        uint64_t row_ = DFA[(byte)];                                                  \
        if (flags)                                                                    \
            seen |= row_;                                                             \
        state = row_ >> (state & DFA_STATE_MASK);                                     \
    } while (0)

static inline uint64_t load_word(const uint8_t *p) {
    uint64_t word;
    memcpy(&word, p, 8);
    return word;
}

/* The hot loop, kept in one function: `flags` is a constant at both call sites, so
 * the lead-flag OR is compiled out of the STRICT path. The DFA runs 8 bytes between
 * checks, so a flag sends at most a word (and the character before it) back to the
 * exact scan. */
static inline int dfa_scan(const uint8_t *p, size_t pos, size_t end, unsigned mask,
                           found_t *f, const int flags) {
    const uint64_t refused = (uint64_t)(mask & DFA_FLAGGED) << DFA_FLAGS;
    size_t base = pos, next;
    uint64_t state = S_ACCEPT;
    while (pos < end) {
        if (state == S_ACCEPT) {
            /* At a character boundary: skip ASCII 32, then 8 bytes at a time. */
            while (end - pos >= 32 && !((load_word(p + pos) | load_word(p + pos + 8) |
                                         load_word(p + pos + 16) |
                                         load_word(p + pos + 24)) &
                                        HIGH_BITS))
                pos += 32;
            while (end - pos >= 8 && !(load_word(p + pos) & HIGH_BITS))
                pos += 8;
        }
        size_t start = pos;
        size_t stop = end - pos < 8 ? end : pos + 8;
        uint64_t seen = 0;
        if (stop - pos == 8) {
            /* A whole word, unrolled: the shifts are the only chain. */
            for (int i = 0; i < 8; i++)
                DFA_STEP(p[pos + i]);
            pos = stop;
        }
        for (; pos < stop; pos++)
            DFA_STEP(p[pos]);
        state &= DFA_STATE_MASK;
        if (state != S_FLAG * DFA_SHIFT && !(seen & refused) &&
            (stop != end || state == S_ACCEPT))
            continue;
        if (scan_exact(p, boundary_before(p, base, start), stop, end, mask, f, &next))
            return 1;
        /* next is a character boundary: restart the DFA there. */
        pos = base = next;
        state = S_ACCEPT;
    }
    return 0;
}

/* The portable scan: the exact scan where ASCII bytes may be refused, else the DFA. */
static int scan_portable(const uint8_t *p, size_t pos, size_t end, unsigned mask,
                         found_t *f) {
    if (mask & (R_NUL | R_CONTROL)) {
        size_t next;
        return scan_exact(p, pos, end, end, mask, f, &next);
    }
    if (mask & DFA_FLAGGED)
        return dfa_scan(p, pos, end, mask, f, 1);
    return dfa_scan(p, pos, end, mask, f, 0);
}
