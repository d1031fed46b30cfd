/* records.h — link records as the analysis tools read them: the check of impossible values, the table's
 * numbers (the median per flow and size: table, compare, plots and the model all read them from here). */
#ifndef AR_LINKS_RECORDS_H
#define AR_LINKS_RECORDS_H

#include <jansson.h>
#include <stddef.h>

/* Every `link` record of notes possible: src, dst distinct ranks >= 0, a method, direction and pattern,
 * bytes > 0, gbs and us null or finite > 0 (us required for method flag), a known path class, samples
 * finite and > 0. 0, or -AR_EINVAL with one line in err naming the record (file:line) and the value. */
int ar_links_check(json_t *notes, char *err, size_t len);

/* The table's numbers: one entry per (method, direction, pattern), in order of first appearance:
 * {"method", "direction", "pattern", "unit": "GB/s" | "us", "sizes": [bytes ascending],
 *  "rows": [{"flow": "S->D" or "S->D (root R)", "src", "dst", "root" (int or null), "path",
 *            "values": [median over the records of that flow and size, or null], "records": [count]}]}.
 * The value is gbs (us for a latency record, ar_link_in_us). New reference. */
json_t *ar_links_tables_json(json_t *notes);

/* A latency record, whose value is `us` (the others' is `gbs`): method flag (the ping-pong) or direction
 * latency (the copy engine's small copies on GPUs). The one test every reader of link records uses. */
int ar_link_in_us(json_t *rec);

/* The matrix of one pairs table at its largest size over ranks 0..n-1 (n <= 0: as many as its rows name);
 * the entry format of ar_links_matrices_json; NULL when the table has no sizes. New reference. */
json_t *ar_links_matrix_json(json_t *table, int n);

/* The matrices of the tables (pattern pairs at each group's largest size): one per (method, direction)
 * and the flag latency: {"method", "direction", "unit", "bytes", "n", "values": n x n (null: diagonal or
 * not measured; bi: the two directions' medians summed), "path": n x n strings ("" on the diagonal)}.
 * New reference. */
json_t *ar_links_matrices_json(json_t *tables);

/* The median of one table row at bytes: NAN when not measured. */
double ar_links_row_value(json_t *table, json_t *row, size_t bytes);

#endif
