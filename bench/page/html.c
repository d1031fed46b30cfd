/* html.c — writing HTML: escaped text, anchor ids, SVG charts inlined with ids of their own, and the
 * markdown the analysis commands print (headings, tables, lines) as HTML. */
#include "page/page.h"
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ar_html_text(FILE *f, const char *s) {
  for (; s && *s; s++) {
    switch (*s) {
    case '&': fputs("&amp;", f); break;
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '"': fputs("&quot;", f); break;
    case '\'': fputs("&#39;", f); break;
    default: fputc(*s, f);
    }
  }
}

void ar_html_printf(FILE *f, const char *fmt, ...) {
  char buf[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  ar_html_text(f, buf);
}

void ar_html_id(char *buf, size_t len, const char *s) {
  size_t n = 0;
  int dash = 0;
  for (; *s && n + 2 < len; s++) {
    unsigned char c = (unsigned char)*s;
    if (isalnum(c)) {
      if (dash && n) buf[n++] = '-';
      buf[n++] = (char)tolower(c);
      dash = 0;
    } else dash = 1;
  }
  buf[n] = 0;
}

/* n bytes of s, without the indentation after each newline (whitespace between elements, and within path
 * data, where any whitespace separates alike). */
static void put_compact(FILE *f, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    fputc(s[i], f);
    if (s[i] == '\n')
      while (i + 1 < n && s[i + 1] == ' ') i++;
  }
}

/* Copy svg to f with every id="X", href="#X" and url(#X) renamed pN-X. */
static void svg_body(FILE *f, const char *s, int n) {
  static const char *const pats[] = {"id=\"", "href=\"#", "url(#"};
  while (*s) {
    size_t best = strlen(s), bl = 0;
    for (size_t k = 0; k < sizeof pats / sizeof pats[0]; k++) {
      const char *q = strstr(s, pats[k]);
      if (q && (size_t)(q - s) < best) best = (size_t)(q - s), bl = strlen(pats[k]);
    }
    put_compact(f, s, best + bl);
    s += best + bl;
    if (bl) fprintf(f, "p%d-", n);
  }
}

/* The width an SVG asks for (width="720pt" or "720px" in its opening tag), in CSS px; 0 when none. */
static double svg_width(const char *tag) {
  const char *end = strchr(tag, '>'), *w = strstr(tag, " width=\"");
  if (!w || (end && w > end)) return 0;
  char *unit;
  double v = strtod(w + 8, &unit);
  return !strncmp(unit, "pt", 2) ? v * 4 / 3 : v;
}

/* The viewBox's width (user units), 0 when none. */
static double svg_viewbox_width(const char *tag) {
  const char *end = strchr(tag, '>'), *v = strstr(tag, " viewBox=\"");
  double x, y, w, h;
  if (!v || (end && v > end) || sscanf(v + 10, "%lf %lf %lf %lf", &x, &y, &w, &h) != 4) return 0;
  return w;
}

/* The smallest font size of the SVG's text, in user units (graphviz: font-size="9.00"; matplotlib's text kept as
 * text: "font: 9px ..." or font-size:9px); 0 when it has none. */
static double svg_min_font(const char *s) {
  static const char *const pats[] = {"font-size=\"", "font-size:", "font: "};
  double lo = 0;
  for (size_t k = 0; k < sizeof pats / sizeof pats[0]; k++)
    for (const char *q = strstr(s, pats[k]); q; q = strstr(q + 1, pats[k])) {
      double v = strtod(q + strlen(pats[k]), NULL);
      if (v > 0 && (lo == 0 || v < lo)) lo = v;
    }
  return lo;
}

void ar_html_svg(FILE *f, const char *svg, int n, const char *label, int legible) {
  const char *start = strstr(svg, "<svg");
  if (!start) return;
  double w = svg_width(start), vb = svg_viewbox_width(start), font = svg_min_font(start);
  fputs("<svg role=\"img\" aria-label=\"", f);
  ar_html_text(f, label);
  fputs("\"", f);
  if (w > 0) { /* scaled down to the page, never up; and, for a chart without a data table, never below 9 px text */
    double px = vb > 0 && font > 0 ? font * w / vb : 0, min = legible && px > 9.2 ? w * 9.2 / px : 0;
    if (min > 0) fprintf(f, " style=\"max-width:%.0fpx;min-width:%.0fpx\"", w, min);
    else fprintf(f, " style=\"max-width:%.0fpx\"", w);
  }
  svg_body(f, start + 4, n);
}

void ar_html_label(FILE *f, const char *s) {
  fputs("<span class=\"lab\">", f);
  for (; s && *s; s++) {
    char c[2] = {*s, 0};
    ar_html_text(f, c);
    if (strchr(",={_", *s) && s[1]) fputs("<wbr>", f);
  }
  fputs("</span>", f);
}

/* ---- markdown (what table and tune print) ---- */

static void cell_text(FILE *f, const char *s, size_t n) {
  while (n && *s == ' ') s++, n--;
  while (n && s[n - 1] == ' ') n--;
  int bold = n > 4 && !strncmp(s, "**", 2) && !strncmp(s + n - 2, "**", 2);
  char buf[1024];
  snprintf(buf, sizeof buf, "%.*s", bold ? (int)n - 4 : (int)n, bold ? s + 2 : s);
  if (bold) fputs("<strong>", f);
  ar_html_text(f, buf);
  if (bold) fputs("</strong>", f);
}

/* One markdown table row ("| a | b |") as <tr>; a separator row ("|---|") prints nothing. The header's cells are
 * kept in heads (up to 16) so that every body cell names its column (data-h: a phone stacks the rows). */
static void md_row(FILE *f, const char *line, int head, char heads[16][64]) {
  if (strspn(line, "|-: ") == strlen(line)) return;
  fputs("<tr>", f);
  const char *p = line + 1;
  int k = 0;
  for (const char *q; (q = strchr(p, '|')); p = q + 1, k++) {
    size_t n = (size_t)(q - p);
    if (head && k < 16) {
      const char *a = p;
      size_t m = n;
      while (m && *a == ' ') a++, m--;
      while (m && a[m - 1] == ' ') m--;
      snprintf(heads[k], 64, "%.*s", (int)m, a);
    }
    if (head) fputs("<th>", f);
    else {
      fputs("<td data-h=\"", f);
      ar_html_text(f, k < 16 ? heads[k] : "");
      fputs("\">", f);
    }
    cell_text(f, p, n);
    fputs(head ? "</th>" : "</td>", f);
  }
  fputs("</tr>\n", f);
}

void ar_html_markdown(FILE *f, const char *md) {
  char *copy = strdup(md ? md : ""), *save = NULL;
  int in_table = 0, rows = 0;
  char heads[16][64] = {{0}};
  for (char *l = copy ? strtok_r(copy, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save)) {
    if (*l == '|') {
      if (!in_table) fputs("<div class=\"scroll\"><table class=\"md stack\">\n", f);
      in_table = 1;
      md_row(f, l, rows++ == 0, heads);
      continue;
    }
    if (in_table) fputs("</table></div>\n", f);
    in_table = rows = 0;
    if (!strncmp(l, "## ", 3)) {
      fputs("<h4>", f);
      ar_html_text(f, l + 3);
      fputs("</h4>\n", f);
    } else if (*l) {
      fputs("<p>", f);
      ar_html_text(f, l);
      fputs("</p>\n", f);
    }
  }
  if (in_table) fputs("</table></div>\n", f);
  free(copy);
}
