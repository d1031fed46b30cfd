/* cmd.c — `arbench report FILE... -o PAGE.html`: check the inputs (records files, doctor --format json
 * files), gather what the analysis commands compute, and write the page whole or not at all. */
#include "infile.h"
#include "page/page.h"
#include "analysis/analysis.h"
#include "ar.h"
#include "ar_git.h"
#include "commands.h"
#include "links/links.h"
#include "links/records.h"
#include "impact/impact.h"
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define AR_REPORT_MODELS 8
struct report_opts {
  const char *out, *title, *plot, *topo_xml;
  int timeout;
  char *models[AR_REPORT_MODELS]; /* --model: impact's section (page/impact.c) */
  int nmodels;
};

static void usage(FILE *f) {
  fprintf(f,
          "usage: arbench report [options] FILE... -o PAGE.html\n"
          "One self-contained HTML page (no network fetch of any kind: charts, style and script inline) from\n"
          "results, links, sweep and import records (JSON Lines) and `arbench doctor --format json` files:\n"
          "  what was measured and where: hosts, GPUs, the PCIe paths between them, stacks, arbench version,\n"
          "    every run with its method and repeats;\n"
          "  the answer: per dtype x ranks x placement the pick per size with its verdict (arbench table's),\n"
          "    the crossovers, every configuration's cells (hover: runs and spread), the files arbench tune\n"
          "    writes (and serving settings when tune writes them);\n"
          "  the evidence: latency and bus bandwidth charts and the best-configuration map (plots/arbench-plot,\n"
          "    drawn from the same table JSON), compare's verdicts when the files hold two stacks or are two\n"
          "    results files, links matrices as heatmaps with their findings, doctor's findings;\n"
          "  skips and warnings: what was not measured and why, unsafe configurations, wrong results.\n"
          "Every number is the analysis commands' own; the page computes none.\n"
          "  -o, --output FILE    the page (written to a temporary file beside it, then renamed)\n"
          "  --title TEXT         the page's title (default: arbench report: HOSTS)\n"
          "  --plot PATH          plots/arbench-plot (default: $ARBENCH_PLOT, then beside the binary's folder,\n"
          "                       then the source tree); without it the page says the charts are left out\n"
          "  --topo-xml FILE      draw the topology picture from this hwloc XML (default: this machine's, when\n"
          "                       the records were measured here)\n"
          "  --timeout SECS       the longest each command may take (default 600)\n"
          "  --model M            also what the allreduce costs model M per token (`arbench impact`, a config.json\n"
          "                       or hidden=N,layers=N,dtype=D; repeatable): one section per model and TP\n"
          "Exit status: 0 written; 1 the page could not be written (nothing is left half-written); 2 bad input\n"
          "(one line naming it); 3 nothing to report (no result, link or doctor records).\n");
}

static int parse(int argc, char **argv, struct report_opts *o) {
  static const struct option lo[] = {{"output", required_argument, 0, 'o'}, {"title", required_argument, 0, 't'},
                                     {"plot", required_argument, 0, 'P'},   {"topo-xml", required_argument, 0, 'x'},
                                     {"timeout", required_argument, 0, 'T'}, {"help", no_argument, 0, 'h'},
                                     {"model", required_argument, 0, 'm'}, {0, 0, 0, 0}};
  int c;
  optind = 1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":ho:", lo, NULL)) != -1) {
    if (c == 'h') return usage(stdout), 1;
    if (c == 'o') o->out = optarg;
    else if (c == 't') o->title = optarg;
    else if (c == 'P') o->plot = optarg;
    else if (c == 'x') o->topo_xml = optarg;
    else if (c == 'm') {
      struct ar_impact_model m;
      char err[AR_ERRLEN];
      if (o->nmodels == AR_REPORT_MODELS) snprintf(err, sizeof err, "more than %d --model", AR_REPORT_MODELS);
      if (o->nmodels == AR_REPORT_MODELS || ar_impact_model_parse(optarg, &m, err, sizeof err)) {
        fprintf(stderr, "arbench report: %s\n", err);
        return -AR_EINVAL;
      }
      o->models[o->nmodels++] = optarg;
    }
    else if (c == 'T') {
      char *end;
      long v = strtol(optarg, &end, 10);
      if (*end || end == optarg || v < 1 || v > 86400) {
        fprintf(stderr, "arbench report: bad --timeout '%s' (expected seconds, 1..86400)\n", optarg);
        return -AR_EINVAL;
      }
      o->timeout = (int)v;
    } else return ar_ana_badopt("report", c, argv[optind - 1]), -AR_EINVAL;
  }
  if (optind >= argc) {
    fprintf(stderr, "arbench report: no files given (usage: arbench report FILE... -o PAGE.html)\n");
    return -AR_EINVAL;
  }
  if (!o->out || !*o->out) {
    fprintf(stderr, "arbench report: no page to write: give -o PAGE.html\n");
    return -AR_EINVAL;
  }
  if (o->topo_xml && access(o->topo_xml, R_OK)) {
    fprintf(stderr, "arbench report: cannot read --topo-xml '%s': %s\n", o->topo_xml, strerror(errno));
    return -AR_EINVAL;
  }
  return 0;
}

/* A doctor --format json document (one object with "findings"), else a records file (JSON Lines, read by
 * ar_ana_load). 1 doctor, 0 records, -AR_EINVAL with one line in err. */
static int classify(const char *path, json_t **doc, char *err, size_t len) {
  *doc = NULL;
  json_error_t je;
  json_t *j; /* a JSON Lines file of 2+ records stops at its second line */
  if (ar_infile_json(path, "records or doctor file", 0, &j, &je, err, len)) return -AR_EINVAL;
  if (!j) return 0;
  if (json_is_object(j) && json_is_array(json_object_get(j, "findings")) && !json_object_get(j, "type")) {
    *doc = j;
    return 1;
  }
  int rec = json_is_object(j) && json_is_string(json_object_get(j, "type"));
  json_decref(j);
  if (rec) return 0;
  snprintf(err, len, "'%s' is JSON that arbench report does not know (expected results, links, sweep or import "
           "records as JSON Lines, or arbench doctor --format json)", path);
  return -AR_EINVAL;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

/* The page is written into a temporary file beside it, renamed over it when whole (open_out, close_out). */
struct out {
  char tmp[4200];
  FILE *f;
};

/* Before any work: the temporary file, or one line in err (the place cannot be written). */
static int open_out(const char *out, struct out *w, char *err, size_t len) {
  const char *slash = strrchr(out, '/');
  if (ar_outfile_check(out, "-o", err, len)) return -AR_EINVAL; /* never renamed over a device or folder */
  snprintf(w->tmp, sizeof w->tmp, "%.*s.%s.XXXXXX", slash ? (int)(slash - out + 1) : 0, out, slash ? slash + 1 : out);
  int fd = mkstemp(w->tmp);
  if (fd < 0) {
    snprintf(err, len, "cannot write '%s': %s", out, strerror(errno));
    return -1;
  }
  mode_t um = umask(0);
  umask(um);
  fchmod(fd, 0666 & ~um);
  if (!(w->f = fdopen(fd, "w"))) {
    snprintf(err, len, "cannot write '%s': %s", out, strerror(errno));
    close(fd);
    unlink(w->tmp);
    return -1;
  }
  return 0;
}

/* ok: flush, sync and rename over out; else (or when that fails) remove the temporary. 0, or -1 with one line
 * in err. */
static int close_out(const char *out, struct out *w, int ok, char *err, size_t len) {
  int bad = fflush(w->f) || ferror(w->f) || fsync(fileno(w->f));
  int e = errno;
  bad |= fclose(w->f) != 0;
  if (ok && !bad && !rename(w->tmp, out)) return 0;
  e = bad ? e : errno;
  unlink(w->tmp);
  if (ok) snprintf(err, len, "cannot write '%s': %s", out, strerror(e ? e : EIO));
  return -1;
}

/* Split argv's files into records files and doctor documents; 0 or exit status 2 (message printed). */
static int inputs(int n, char **files, struct ar_page *p) {
  char err[AR_ERRLEN];
  for (int i = 0; i < n; i++) {
    json_t *doc;
    int k = classify(files[i], &doc, err, sizeof err);
    if (k < 0) {
      fprintf(stderr, "arbench report: %s\n", err);
      return AR_EXIT_USAGE;
    }
    if (k) json_array_append_new(p->doctor, json_pack("{s:s, s:o}", "file", files[i], "doctor", doc));
    else p->files[p->nfiles++] = files[i];
  }
  return 0;
}

static void page_free(struct ar_page *p) {
  free(p->files);
  json_decref(p->doctor);
  json_decref(p->table);
  json_decref(p->tune);
  json_decref(p->compare);
  json_decref(p->plots);
  json_decref(p->plotted);
  json_decref(p->findings);
  json_decref(p->warnings);
  json_decref(p->impact);
}

/* What the page holds, one line for the terminal. */
static void say_written(const char *out, const struct ar_page *p, int figures) {
  struct stat st;
  long long kb = stat(out, &st) ? 0 : (long long)(st.st_size + 1023) / 1024;
  printf("wrote %s (%lld KiB: %zu table%s, %d chart%s, %zu warning%s)\n", out, kb,
         json_array_size(json_object_get(p->table, "grids")), json_array_size(json_object_get(p->table, "grids")) == 1 ? "" : "s",
         figures, figures == 1 ? "" : "s", json_array_size(p->warnings), json_array_size(p->warnings) == 1 ? "" : "s");
}

static int report(const struct report_opts *o, struct ar_page *p, struct ar_page_tools *t, struct ar_ana *a) {
  char err[AR_ERRLEN];
  int nlinks = ar_links_count(a->notes);
  if (!json_array_size(a->results) && !nlinks && !json_array_size(p->doctor)) {
    fprintf(stderr, "arbench report: nothing to report in %d file%s (%zu run record%s, %zu other): no result, link or "
            "doctor records\n", p->nfiles + (int)json_array_size(p->doctor), p->nfiles + json_array_size(p->doctor) == 1 ? "" : "s",
            json_object_size(a->runs), json_object_size(a->runs) == 1 ? "" : "s", json_array_size(a->notes));
    return AR_EXIT_NOTHING;
  }
  struct out w;
  int orc = open_out(o->out, &w, err, sizeof err);
  if (orc) {
    fprintf(stderr, "arbench report: %s\n", err);
    return orc == -AR_EINVAL ? AR_EXIT_USAGE : AR_EXIT_FAIL;
  }
  snprintf(t->tmp, sizeof t->tmp, "%s/arbench-report.XXXXXX", getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  int scratch = mkdtemp(t->tmp) != NULL, figures = 0, rc = scratch ? 0 : -1;
  if (!scratch) snprintf(err, sizeof err, "cannot make a scratch directory %.300s: %s", t->tmp, strerror(errno));
  else rc = ar_page_gather(p, t, a->results, a->notes, ar_stack_count(a->results, a->runs), err, sizeof err);
  if (!rc && o->nmodels) ar_page_impact_gather(p, t, (char **)o->models, o->nmodels, ar_stack_count(a->results, a->runs));
  if (!rc && (figures = ar_page_render(w.f, p)) < 0) {
    rc = -1;
    snprintf(err, sizeof err, "out of memory writing the page");
  }
  if (close_out(o->out, &w, !rc, err, sizeof err)) rc = -1;
  if (scratch) nftw(t->tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  if (rc) {
    fprintf(stderr, "arbench report: %s\n", err);
    return AR_EXIT_FAIL;
  }
  say_written(o->out, p, figures);
  return AR_EXIT_OK;
}

int ar_cmd_report(int argc, char **argv) {
  struct report_opts o = {.timeout = 600};
  int rc = parse(argc, argv, &o);
  if (rc) return rc > 0 ? AR_EXIT_OK : AR_EXIT_USAGE;
  struct ar_page p = {.title = o.title, .doctor = json_array(), .plots = json_object(), .findings = json_array(),
                      .warnings = json_array(), .files = calloc((size_t)(argc - optind + 1), sizeof(char *))};
  struct ar_page_tools t = {.timeout = o.timeout, .topo_xml = o.topo_xml};
  int first = optind;
  struct ar_ana a = {0};
  char err[AR_ERRLEN];
  if (!p.files) return AR_EXIT_FAIL;
  if ((rc = inputs(argc - first, argv + first, &p))) {
    page_free(&p);
    return rc;
  }
  if (ar_ana_load(&a, p.nfiles, p.files, err, sizeof err) || ar_links_check(a.notes, err, sizeof err)) {
    fprintf(stderr, "arbench report: %s\n", err);
    ar_ana_free(&a);
    page_free(&p);
    return AR_EXIT_USAGE;
  }
  ssize_t n = readlink("/proc/self/exe", t.self, sizeof t.self - 1);
  t.self[n > 0 ? n : 0] = 0;
  ar_page_find_plot(o.plot, t.self, t.plot, sizeof t.plot);
  snprintf(p.version, sizeof p.version, "%s", AR_VERSION_STRING);
  snprintf(p.git, sizeof p.git, "%s", AR_GIT_COMMIT);
  time_t now = time(NULL);
  strftime(p.when, sizeof p.when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  p.runs = a.runs;
  rc = report(&o, &p, &t, &a);
  ar_ana_free(&a);
  page_free(&p);
  return rc;
}
