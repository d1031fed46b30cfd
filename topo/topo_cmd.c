/* topo_cmd.c — `arbench topo [--xml FILE] [--format text|json|dot]`: parse options, load the
 * topology (live, --xml, or HWLOC_XMLFILE) and print it. Bad options and files: one line, exit 2. */
#include "topo_int.h"
#include "ar.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum topo_format { FMT_TEXT, FMT_JSON, FMT_DOT };

struct topo_args {
  const char *xml;
  enum topo_format format;
  bool help;
};

static void usage(FILE *f) {
  fprintf(f, "usage: arbench topo [--xml FILE] [--format text|json|dot]\n\n"
             "GPUs, PCIe paths and NUMA layout from hwloc (this machine with I/O devices, or an hwloc XML).\n"
             "  --xml FILE        read an hwloc XML topology (lstopo --of xml) instead of this machine;\n"
             "                    HWLOC_XMLFILE is used when --xml is not given\n"
             "  --format FMT      text (default): nvidia-smi-like path matrix, legend, per-GPU table, layout\n"
             "                    json: the topology summary stored in run records (with digest)\n"
             "                    dot: graphviz graph (arbench topo --format dot | dot -Tpng -o topo.png)\n"
             "  -h, --help        this help\n"
             "GPUs are NVIDIA PCI devices of class VGA (0x0300) or 3D controller (0x0302), numbered in PCI bus\n"
             "id order. Paths: PIX one switch, PXB several bridges, PHB host bridge, NODE across host bridges\n"
             "of one NUMA node, SYS across NUMA nodes.\n");
}

static int parse_format(const char *s, enum topo_format *out) {
  if (!strcmp(s, "text")) *out = FMT_TEXT;
  else if (!strcmp(s, "json")) *out = FMT_JSON;
  else if (!strcmp(s, "dot")) *out = FMT_DOT;
  else {
    fprintf(stderr, "arbench topo: bad --format '%s' (allowed: text, json, dot)\n", s);
    return -AR_EINVAL;
  }
  return 0;
}

/* Value of option name at argv[*i] ("--name V" or "--name=V"); NULL when argv[*i] is not that option. */
static const char *option_value(int argc, char **argv, int *i, const char *name, int *missing) {
  size_t n = strlen(name);
  if (strncmp(argv[*i], name, n)) return NULL;
  if (argv[*i][n] == '=') return argv[*i] + n + 1;
  if (argv[*i][n]) return NULL;
  if (*i + 1 >= argc) {
    *missing = 1;
    return NULL;
  }
  return argv[++*i];
}

static int parse_args(int argc, char **argv, struct topo_args *a) {
  for (int i = 1; i < argc; i++) {
    int missing = 0;
    const char *v;
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      a->help = true;
    } else if ((v = option_value(argc, argv, &i, "--xml", &missing))) {
      if (!*v) {
        fprintf(stderr, "arbench topo: --xml needs a file name\n");
        return -AR_EINVAL;
      }
      a->xml = v;
    } else if ((v = option_value(argc, argv, &i, "--format", &missing))) {
      if (parse_format(v, &a->format)) return -AR_EINVAL;
    } else if (missing) {
      fprintf(stderr, "arbench topo: %s needs a value\n", argv[i]);
      return -AR_EINVAL;
    } else {
      fprintf(stderr, "arbench topo: unknown option '%s' (allowed: --xml FILE, --format text|json|dot, --help)\n",
              argv[i]);
      return -AR_EINVAL;
    }
  }
  return 0;
}

int ar_cmd_topo(int argc, char **argv) {
  struct topo_args a = {.format = FMT_TEXT};
  if (parse_args(argc, argv, &a)) return AR_EXIT_USAGE;
  if (a.help) {
    usage(stdout);
    return AR_EXIT_OK;
  }
  struct ar_topo *t = NULL;
  char err[AR_ERRLEN] = "";
  int rc = ar_topo_load(&t, a.xml, err, sizeof err);
  if (rc) {
    fprintf(stderr, "arbench topo: %s\n", err);
    return rc == -AR_EINVAL ? AR_EXIT_USAGE : AR_EXIT_FAIL;
  }
  ar_topo_map_cuda(t);
  json_t *s = ar_topo_summary(t);
  const char *digest = json_string_value(json_object_get(s, "digest"));
  if (a.format == FMT_JSON) {
    json_dumpf(s, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    fputc('\n', stdout);
  } else if (a.format == FMT_DOT) {
    ar_topo_print_dot(stdout, t, digest ? digest : "");
  } else {
    ar_topo_print_text(stdout, t, digest ? digest : "");
  }
  json_decref(s);
  ar_topo_destroy(t);
  return fflush(stdout) ? AR_EXIT_FAIL : AR_EXIT_OK;
}
