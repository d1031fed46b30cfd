/* infile.h — the one way a command opens a file the user named: a regular file of at most
 * AR_INFILE_MAX bytes, no NUL byte in its first block, read only up to the size it had when opened;
 * and the check of a file a command writes in place of (-o): new, or a regular file. */
#ifndef AR_INFILE_H
#define AR_INFILE_H
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#define AR_INFILE_MAX (4ull << 30) /* the largest file any command reads: 4 GiB */
#define AR_INFILE_SNIFF 4096       /* the first block, where a NUL byte means binary data */

enum {
  AR_INFILE_STDIN = 1,  /* "-" is standard input (a pipe or a regular file; not a device) */
  AR_INFILE_DIR = 2,    /* the command also takes a folder: a directory returns 1 and no stream */
  AR_INFILE_BINARY = 4, /* binary content is allowed (no NUL check) */
};

/* Opens PATH for reading, WHAT naming it in messages ("results file", "nccl-tests log"). 0 with *f
 * set (the stream ends where the file ended when it was opened: a file that keeps growing is read up
 * to that size; it seeks and rewinds), 1 with *f NULL for a directory under AR_INFILE_DIR, or
 * -AR_EINVAL with one line in err naming the path and what is allowed. Never blocks: a FIFO with no
 * writer, a device, a /proc or /sys file and a socket are refused before anything is read. */
int ar_infile_open(const char *path, const char *what, unsigned flags, FILE **f, char *err, size_t len);

/* The same checks without keeping the stream, for a library that opens by name. 0, 1 (a directory under
 * AR_INFILE_DIR) or -AR_EINVAL. */
int ar_infile_check(const char *path, const char *what, unsigned flags, char *err, size_t len);

/* Reads the whole of PATH (checked as above) into a NUL-terminated buffer; 0, or -AR_EINVAL with err. */
int ar_infile_slurp(const char *path, const char *what, unsigned flags, char **buf, size_t *n, char *err, size_t len);

/* Opens PATH as above and parses it as one JSON value (jansson FLAGS): -AR_EINVAL with err when the
 * file is refused, else 0 with *out the value, or NULL and *je saying where the JSON is wrong. */
int ar_infile_json(const char *path, const char *what, size_t flags, json_t **out, json_error_t *je, char *err,
                   size_t len);

/* An output path a command writes (or renames a temporary over): -AR_EINVAL with one line in err when it
 * is a directory, a device, a FIFO or a socket (never replaced, never written into), or when its folder is
 * missing or not writable; 0 for a new or regular file. WHAT names the option ("-o"). */
int ar_outfile_check(const char *path, const char *what, char *err, size_t len);
#endif
