/* variant.h — the key=value,... variant text of the custom GPU backends (p2p-*, fused, symm): one splitter
 * and one integer reader, so every backend words its errors alike. Pure C. */
#ifndef AR_VARIANT_H
#define AR_VARIANT_H
#include <stddef.h>

/* Integer value of key=val in lo..hi; -AR_EINVAL with "WHO variant KEY=VAL: expected an integer LO..HI". */
int ar_variant_int(const char *who, const char *key, const char *val, int lo, int hi, int *out, char *err,
                   size_t len);
/* Split text at commas into key=value pairs and hand each to fn (keys: the list named in errors);
 * -AR_EINVAL with a message on a malformed text, or fn's error. */
typedef int (*ar_variant_fn)(void *ctx, const char *key, const char *val, char *err, size_t len);
int ar_variant_each(const char *who, const char *keys, const char *text, ar_variant_fn fn, void *ctx, char *err,
                    size_t len);
#endif
