/* serving.c — the serving settings tune wrote (serving.json) as a person acts on them: per engine one short
 * table, a row per group (TP, dtype, custom allreduce, the crossover in bytes and tokens, flags, env, patches). */
#include "page/page.h"
#include "opts.h"
#include <stdio.h>
#include <string.h>

/* "8K (8192 B)", or "-" when v is not a number. */
static void bytes_cell(FILE *f, json_t *v) {
  if (!json_is_integer(v)) {
    fputs("-", f);
    return;
  }
  char b[32];
  ar_size_format((size_t)json_integer_value(v), b, sizeof b);
  ar_html_printf(f, "%s (%lld B)", b, (long long)json_integer_value(v));
}

/* A list of strings (flags) or an object's NAME=VALUE lines (env), one <code> each; "none" when empty. */
static void code_list(FILE *f, json_t *v) {
  size_t i, n = 0;
  json_t *x;
  const char *k;
  if (json_is_array(v)) json_array_foreach(v, i, x) {
      fputs(n++ ? "<br><code>" : "<code>", f);
      ar_html_text(f, json_string_value(x));
      fputs("</code>", f);
    }
  if (json_is_object(v)) json_object_foreach(v, k, x) {
      fputs(n++ ? "<br><code>" : "<code>", f);
      ar_html_printf(f, "%s=%s", k, json_string_value(x) ? json_string_value(x) : "");
      fputs("</code>", f);
    }
  if (!n) fputs("none", f);
}

static void group_row(FILE *f, json_t *g) {
  json_t *ca = json_object_get(g, "custom_allreduce"), *patch = json_object_get(g, "needs_patch"), *x;
  size_t i;
  int nodes = (int)json_integer_value(json_object_get(g, "nodes"));
  fputs("<tr><td class=\"l\" data-h=\"group\">", f);
  ar_html_printf(f, "TP %lld, %s, %s%s", (long long)json_integer_value(json_object_get(g, "ranks")), ar_pj_str(g, "dtype"),
                 strcmp(ar_pj_str(g, "placement"), "in") ? "out-of-place" : "in-place",
                 nodes > 1 ? ", several nodes" : "");
  fputs("</td><td class=\"l\" data-h=\"custom allreduce\">", f);
  fputs(json_is_true(ca) ? "on" : json_is_false(ca) ? "off" : "not decided", f);
  fputs("</td><td class=\"l\" data-h=\"custom up to\">", f);
  bytes_cell(f, json_object_get(g, "custom_max_bytes"));
  if (json_is_integer(json_object_get(g, "custom_max_tokens")))
    ar_html_printf(f, "; %lld tokens", (long long)json_integer_value(json_object_get(g, "custom_max_tokens")));
  if (json_is_integer(json_object_get(g, "engine_custom_max_bytes"))) {
    fputs("<br>engine's kernels: ", f);
    bytes_cell(f, json_object_get(g, "engine_custom_max_bytes"));
  }
  fputs("</td><td class=\"l\" data-h=\"flags\">", f);
  code_list(f, json_object_get(g, "flags"));
  fputs("</td><td class=\"l\" data-h=\"env\">", f);
  code_list(f, json_object_get(g, "env"));
  fputs("</td><td class=\"l\" data-h=\"needs a patch\">", f);
  json_array_foreach(patch, i, x) {
    if (i) fputs("<br>", f);
    ar_html_text(f, ar_pj_str(x, "what"));
  }
  if (!json_array_size(patch)) fputs("none", f);
  fputs("</td><td class=\"l\" data-h=\"what the engine does\">", f);
  ar_html_text(f, *ar_pj_str(g, "undecided") ? ar_pj_str(g, "undecided") : ar_pj_str(g, "engine_runs"));
  fputs("</td></tr>\n", f);
}

void ar_page_serving(FILE *f, const char *text) {
  json_error_t je;
  json_t *s = json_loads(text ? text : "", 0, &je), *engines = json_object_get(s, "engines"), *gs;
  const char *name;
  fputs("<h4 id=\"serving\">Serving settings (serving.json)</h4>\n", f);
  if (!json_is_object(engines)) {
    fputs("<p class=\"none\">No serving settings: serving.json is not the document tune writes (it is below, as "
          "written).</p>\n", f);
    json_decref(s);
    return;
  }
  size_t shown = 0;
  json_object_foreach(engines, name, gs) {
    if (!json_array_size(gs)) continue;
    shown++;
    fputs("<div class=\"scroll\"><table class=\"serving stack\"><caption>", f);
    ar_html_printf(f, "%s (%s)", name, ar_pj_str(json_object_get(s, "engine_sources"), name));
    fputs("</caption><thead><tr><th class=\"l\">group</th><th class=\"l\">custom allreduce</th><th class=\"l\">custom up "
          "to (crossover)</th><th class=\"l\">flags</th><th class=\"l\">env</th><th class=\"l\">needs a patch</th>"
          "<th class=\"l\">what the engine does</th></tr></thead><tbody>\n", f);
    size_t i;
    json_t *g;
    json_array_foreach(gs, i, g) group_row(f, g);
    fputs("</tbody></table></div>\n", f);
  }
  if (!shown) {
    fputs("<p class=\"none\">No serving settings: ", f);
    ar_html_text(f, *ar_pj_str(s, "none") ? ar_pj_str(s, "none") : "no engine group in the files (no GPU allreduce "
                                                                     "measured for an engine's TP size and dtype)");
    fputs(".</p>\n", f);
  } else
    fputs("<p class=\"meta\">Custom up to: the largest size at which a custom allreduce is still the pick (tokens: at "
          "tune's --hidden); the full rules, decisions and options are in serving.json below.</p>\n", f);
  json_decref(s);
}
