/* doctor.c — `arbench doctor`: runs the check groups (PCI, P2P, NCCL env, CUDA stack) over the live
 * system or a fixture root, and prints each finding with what to do; checks it skipped say why. */
#include "doctor/doctor.h"
#include "ar.h"
#include "commands.h"
#include <dirent.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

extern char **environ;

static const char *const level_names[] = {"ok", "info", "warn", "FAIL", "skip"};

void ar_doc_add(struct ar_doc *d, const char *group, const char *check, enum ar_dlevel lv, const char *todo,
                const char *fmt, ...) {
  char found[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(found, sizeof found, fmt, ap);
  va_end(ap);
  json_array_append_new(d->items, json_pack("{s:s,s:s,s:s,s:s,s:s}", "group", group, "check", check, "level",
                                            level_names[lv], "found", found, "todo", todo ? todo : ""));
  d->count[lv]++;
}

void ar_doc_path(const struct ar_doc *d, char *buf, size_t len, const char *fmt, ...) {
  char rel[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(rel, sizeof rel, fmt, ap);
  va_end(ap);
  snprintf(buf, len, "%s%s", d->root, rel);
}

int ar_doc_read(const struct ar_doc *d, const char *path, char *buf, size_t len) {
  char full[2048];
  ar_doc_path(d, full, sizeof full, "%s", path);
  FILE *f = fopen(full, "r");
  *buf = 0;
  if (!f) return -1;
  if (!fgets(buf, (int)len, f)) *buf = 0;
  fclose(f);
  buf[strcspn(buf, "\n")] = 0;
  return 0;
}

static void usage(FILE *f) {
  fprintf(f,
    "usage: arbench doctor [--sysfs-root DIR] [--format text|json]\n"
    "Checks that explain bad allreduce numbers, each with what it found and what to do: PCIe link speed\n"
    "and width of every GPU and bridge on its path (current vs maximum), ACS P2P redirect bits on those\n"
    "bridges, the IOMMU mode, NUMA locality, persistence mode, P2P access per GPU pair (needs CUDA), NCCL\n"
    "environment that disables P2P or forces unsafe protocols, and the CUDA stack: driver vs this\n"
    "binary's runtime vs the toolkits under /usr/local/cuda*, GPU compute capability vs archs compiled.\n"
    "  --sysfs-root DIR  read sys/, proc/, usr/local/ and run/ under DIR instead of / (fixture trees)\n"
    "  --format F        text (default) or json (one object with every finding)\n"
    "Exit status: 0 nothing wrong found, 1 a warning or failure found, 2 bad usage.\n");
}

static void print_text(const struct ar_doc *d) {
  size_t i;
  json_t *it;
  const char *group = "";
  json_array_foreach(d->items, i, it) {
    const char *g = json_string_value(json_object_get(it, "group"));
    const char *todo = json_string_value(json_object_get(it, "todo"));
    if (strcmp(g, group)) printf("%s== %s\n", *group ? "\n" : "", g);
    group = g;
    printf("[%-4s] %s: %s\n", json_string_value(json_object_get(it, "level")),
           json_string_value(json_object_get(it, "check")), json_string_value(json_object_get(it, "found")));
    if (*todo) printf("       -> %s\n", todo);
  }
  printf("\n%d ok, %d info, %d warnings, %d failures, %d skipped\n", d->count[AR_D_OK], d->count[AR_D_INFO],
         d->count[AR_D_WARN], d->count[AR_D_FAIL], d->count[AR_D_SKIP]);
}

static int parse(int argc, char **argv, const char **root, int *json) {
  static const struct option lo[] = {{"sysfs-root", required_argument, 0, 'r'},
                                     {"format", required_argument, 0, 'f'}, {"help", no_argument, 0, 'h'},
                                     {0, 0, 0, 0}};
  int c;
  struct stat st;
  opterr = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
    if (c == 'r') {
      if (stat(optarg, &st) || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "arbench doctor: --sysfs-root %s: not a directory\n", optarg);
        return -AR_EINVAL;
      }
      *root = optarg;
    } else if (c == 'f') {
      if (strcmp(optarg, "text") && strcmp(optarg, "json")) {
        fprintf(stderr, "arbench doctor: --format %s: allowed text or json\n", optarg);
        return -AR_EINVAL;
      }
      *json = !strcmp(optarg, "json");
    } else if (c == 'h') {
      usage(stdout);
      return 1;
    } else {
      fprintf(stderr, "arbench doctor: %s '%s'\n", c == ':' ? "missing value for" : "unknown option",
              argv[optind - 1]);
      return -AR_EINVAL;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "arbench doctor: unexpected argument '%s'\n", argv[optind]);
    return -AR_EINVAL;
  }
  return 0;
}

int ar_cmd_doctor(int argc, char **argv) {
  const char *root = "";
  int json = 0, rc = parse(argc, argv, &root, &json);
  if (rc) return rc > 0 ? AR_EXIT_OK : AR_EXIT_USAGE;
  struct ar_doc d = {.root = root, .live = !*root, .items = json_array()};
  struct ar_doc_gpu g[64];
  int n = ar_doc_gpus(&d, g, 64);
  ar_doctor_pci(&d, g, n);
  ar_doctor_p2p(&d, n);
  ar_doctor_env(&d, environ);
  ar_doctor_stack(&d, g, n);
  if (json) {
    json_t *o = json_pack("{s:s,s:i,s:O}", "root", *root ? root : "/", "gpus", n, "findings", d.items);
    json_dumpf(o, stdout, JSON_INDENT(2));
    putchar('\n');
    json_decref(o);
  } else
    print_text(&d);
  json_decref(d.items);
  return d.count[AR_D_WARN] || d.count[AR_D_FAIL] ? AR_EXIT_FAIL : AR_EXIT_OK;
}
