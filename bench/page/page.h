/* page.h — `arbench report`: one self-contained HTML page from results, links, sweep and import records
 * (and doctor --format json files). Its numbers are the analysis commands' own (table, tune, compare). */
#ifndef AR_PAGE_H
#define AR_PAGE_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* What the page shows, gathered before anything is written (gather.c). Every number in it comes from
 * `arbench table --format json`, `arbench tune -o`, `arbench compare --format json`, the link findings
 * (ar_links_findings) and the records themselves; the page formats them and computes none. */
struct ar_page {
  const char *title;   /* --title, or NULL: "arbench report: HOSTS" */
  int nfiles;          /* the records files (JSON Lines) */
  char **files;
  json_t *doctor;      /* array of {"file", "doctor"} (doctor --format json documents) */
  json_t *runs;        /* run_id -> run record (ar_ana_load) */
  json_t *table;       /* `arbench table --format json` of the records files, or NULL */
  json_t *tune;        /* {"stdout": markdown, "files": {name: text}} of `arbench tune -o DIR`, or NULL */
  json_t *compare;     /* `arbench compare --format json`, or NULL */
  const char *compare_how; /* "A vs B" or "stacks": what was compared (NULL: nothing) */
  char compare_why[1024];  /* compare ran and gave nothing: its last line ("" when it was not run or gave some) */
  json_t *plots;       /* name (file stem) -> SVG text as arbench-plot wrote it */
  json_t *plotted;     /* arbench-plot's plotted.json: the numbers each chart drew (its data table), or NULL */
  json_t *findings;    /* array of {"run": run_id, "ranks": n, "lines": [...]} of the link records */
  json_t *warnings;    /* array of strings: what the commands said on stderr, plots left out and why */
  json_t *impact;      /* `arbench impact --format json` per --model and TP (impact.c), or NULL */
  char version[64], git[64], when[32]; /* of the arbench that wrote the page */
};

/* The subcommands and the plot script the page is made from (gather.c). */
struct ar_page_tools {
  char self[4096];  /* this arbench binary */
  char plot[4096];  /* plots/arbench-plot, "" when not found */
  char tmp[4096];   /* scratch directory, removed at the end */
  int timeout;      /* seconds each command may take */
  const char *topo_xml; /* --topo-xml: the topology picture from this hwloc XML (NULL: the live one) */
};

/* Run the analysis commands on the records files and fill p (table, tune, compare, plots, link findings,
 * warnings); results and notes are the records as ar_ana_load read them, stacks how many stacks they hold.
 * 0, or -1 with one line in err (the table command failed: nothing to show). */
int ar_page_gather(struct ar_page *p, const struct ar_page_tools *t, json_t *results, json_t *notes, int stacks,
                   char *err, size_t len);
/* Locate arbench-plot: --plot PATH, else $ARBENCH_PLOT (both used as given), else DIR_OF_BINARY/../plots,
 * else the source tree's; "" when none is there. */
void ar_page_find_plot(const char *given, const char *self, char *out, size_t len);
/* Run argv with stdout and stderr into files, stdin from /dev/null, for at most timeout seconds (then
 * its process group is killed). Exit status, or -1 with one line in err. */
int ar_page_spawn(char *const argv[], const char *out, const char *errf, int timeout, char *err, size_t len);
/* The same in two steps, so that two commands run side by side (the charts while tune runs): start it, then
 * wait for it (its timeout counted from its start). */
struct ar_page_job {
  pid_t pid;
  double start;
  char what[256];
};
int ar_page_start(char *const argv[], const char *out, const char *errf, struct ar_page_job *job, char *err, size_t len);
int ar_page_finish(struct ar_page_job *job, int timeout, char *err, size_t len);

/* Write the whole page to f (render.c); the number of charts it holds, -1 out of memory. */
int ar_page_render(FILE *f, const struct ar_page *p);

/* ---- rendering: one function per section, all writing through one context ---- */
struct ar_render {
  FILE *f;
  const struct ar_page *p;
  int figures; /* charts inlined so far: each one's ids get its own prefix */
  json_t *left_out; /* [{"section", "id", "why"}]: sections (or parts) with nothing to show, named in the summary */
};
/* The one rule for every section (the tokens-per-second one too): a section or part with nothing to show is not
 * written; it says so here, and the page's summary (written after the sections) names it and why; the contents
 * leave out its anchor id (NULL: a part without one). */
void ar_page_leave_out(struct ar_render *r, const char *section, const char *id, const char *why);
void ar_page_provenance(struct ar_render *r); /* provenance.c: hosts, GPUs, topology, stack, method */
void ar_page_answer(struct ar_render *r);     /* answer.c: decision tables, crossovers, tuning files */
void ar_page_evidence(struct ar_render *r);   /* evidence.c: charts, compare, links, doctor */
/* impact.c: report --model's section: run `arbench impact` per model and per TP of the table's grids; render it. */
void ar_page_impact_gather(struct ar_page *p, const struct ar_page_tools *t, char **models, int nmodels, int stacks);
void ar_page_impact(struct ar_render *r);
/* serving.c: serving.json (its text as tune wrote it) as a table per engine, or one line saying why none. */
void ar_page_serving(FILE *f, const char *text);
/* Shared pieces (render.c). */
const char *ar_pj_str(json_t *o, const char *key);     /* "" when absent */
double ar_pj_num(json_t *o, const char *key);          /* NAN when absent or null */
void ar_page_grid_title(json_t *grid, char *buf, size_t len); /* "bfloat16, 8 ranks, out-of-place, sum" */
void ar_page_grid_id(json_t *grid, char *buf, size_t len);    /* "g-bfloat16-8r-out-sum" */
/* One chart of arbench-plot (name: its file stem) in a <figure> with its data table (the numbers it drew, from
 * plotted.json, collapsed; or data_table: the id of a table elsewhere on the page that holds them); 0, or -1 when
 * it was not drawn. */
int ar_page_figure(struct ar_render *r, const char *name, const char *caption);
int ar_page_figure_with(struct ar_render *r, const char *name, const char *caption, const char *data_table);

/* ---- the pick of a size (picks.c): the one place the page reads table's decision ---- */
struct ar_pick {
  int config;            /* index into the grid's configs, -1 when nothing was picked */
  json_t *cell;          /* the picked configuration's cell at this size (table's statistics), or NULL */
  const char *verdict;   /* "clear", "equivalent", "undecided"; "tie" from a table that marks ties only */
  double margin;         /* the equivalence margin the decision used (0.05 = 5%), NAN when not given */
  double lead;           /* the fastest configuration outside the equivalent set / the pick - 1, NAN: none */
  int runs_needed;       /* runs per side that would decide an undecided size, 0 decided, -1 not known */
  int launches;          /* runs_needed counts launches a side (table json's runs_needed_unit "launches") */
  int one_launch;        /* one launch a side: nothing between launches was tested (table json's one_launch) */
  json_t *equivalent;    /* the equivalent set (configuration indexes) or NULL */
  int has_bound;         /* the decision carries "bound_pct" (tables from issue 46 on), null or not */
  double bound_pct;      /* how much slower than bound_vs the pick can be at 95%, percent; NAN: unknown */
  const char *bound_vs;  /* that alternative's label, or NULL */
};
/* The pick at size index s of one grid of `table --format json`: its per-size "decisions" when the table
 * has them (config -1 at a size without one), else the cells' "best" and "tie". */
void ar_page_pick(json_t *grid, size_t s, struct ar_pick *out);
/* The cell of configuration c at size index s, or NULL. */
json_t *ar_page_cell(json_t *grid, size_t s, int c);

/* ---- HTML output (html.c) ---- */
void ar_html_text(FILE *f, const char *s);            /* text and attribute values, escaped */
void ar_html_printf(FILE *f, const char *fmt, ...)    /* formatted, then escaped */
    __attribute__((format(printf, 2, 3)));
void ar_html_id(char *buf, size_t len, const char *s); /* an anchor id from any text: [a-z0-9-] */
/* An SVG file's text for inlining as element n of the page: the XML prolog dropped, ids prefixed
 * ("pN-") so the charts' clip paths and glyphs do not collide, role and label added; legible: never drawn so small
 * that its smallest text falls under 9 px (a narrow screen scrolls it inside its card instead). */
void ar_html_svg(FILE *f, const char *svg, int n, const char *label, int legible);
/* A configuration label, at least 12em wide, with break opportunities after , = { _ (long sweep points wrap
 * on a phone without squeezing into a sliver). */
void ar_html_label(FILE *f, const char *s);
/* Markdown as the commands print it (## headings, | tables |, lines) as HTML. */
void ar_html_markdown(FILE *f, const char *md);
extern const char ar_page_css[], ar_page_js[];

#endif
