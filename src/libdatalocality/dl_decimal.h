/*
 * dl_decimal.h - strict decimal numbers, as the accounting record
 * (dl_acct.h) and the node cache service's wire (dl_net_msg.h) write
 * them: one parser so that both read the same grammar.
 *
 * Nothing here allocates.
 */
#ifndef DL_DECIMAL_H
#define DL_DECIMAL_H

#include <stddef.h>
#include <stdint.h>

/*
 * The n bytes at s as an unsigned decimal into *out: digits only (no
 * sign, no blank), no leading zero except "0" itself, no overflow.
 * Returns 0, or -1 (and leaves *out alone) when the text is not such a
 * number; s need not be NUL-terminated.
 */
int dl_decimal_u64(const char *s, size_t n, uint64_t *out);

#endif
