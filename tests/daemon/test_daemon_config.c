/* The daemon's settings table and path confinement (daemon/config.h):
 * - defaults; every bound enforced for flags and for the file, with messages naming the
 *   setting and the value; flags override the file; a list flag replaces the file's list;
 *   unknown settings and malformed files refused; --print-config output reads back equal;
 * - config_confine_path: files inside the input directories accepted (relative paths
 *   from the first), escapes by "..", by an absolute path, by a symbolic link (file or
 *   directory) and by a sibling directory sharing the prefix refused. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/config.h"
#include "harness.h"

static char tmp[256];

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* Parses argv (NULL-terminated) over the defaults; returns the status, message in err. */
static g16_status parse(daemon_config *cfg, char *err, size_t cap, char **argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    bool help, print;
    CHECK(config_defaults(cfg) == G16_OK);
    g16_status st = config_parse_args(cfg, &help, &print, argc, argv);
    snprintf(err, cap, "%s", st ? g16_last_error() : "");
    return st;
}

static void test_defaults_and_bounds(void)
{
    daemon_config cfg;
    char err[512];
    CHECK(parse(&cfg, err, sizeof err, (char *[]){NULL}) == G16_OK);
    CHECK(!strcmp(cfg.listen, "127.0.0.1"));
    CHECK(cfg.port == 7816 && cfg.max_body == 1024 * 1024 && cfg.concurrency == 1);
    CHECK(cfg.lease == 30 && !strcmp(cfg.backend, "auto") && cfg.input_dirs.count == 0);
    config_free(&cfg);

    /* Each bad value is refused with the setting and the value in the message. */
    static const char *const BAD[][3] = {
        {"--port", "65536", "port = '65536'"},
        {"--port", "-1", "port"},
        {"--port", "80x", "port = '80x'"},
        {"--max-body", "100", "max_body = '100'"},
        {"--max-body", "1T", "max_body"},
        {"--max-body", "12X", "max_body"},
        {"--lease", "0.5", "lease = '0.5'"},
        {"--lease", "nan", "lease"},
        {"--concurrency", "0", "concurrency"},
        {"--backend", "gpu", "want one of cpu|cuda|auto"},
        {"--key", "noequals", "want ID=PATH"},
        {"--key", "bad/id=x.zkey", "key id 'bad/id'"},
        {"--key", "synthetic-1=x.zkey", "name native keys"},
        {"--key", "k=", "has no path"},
        {"--max-constraints", "100", "max_constraints"},
        {"--nosuch", "1", "unknown option '--nosuch'"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        g16_status st = parse(&cfg, err, sizeof err,
                              (char *[]){(char *)BAD[i][0], (char *)BAD[i][1], NULL});
        if (!CHECK(st == G16_ERR_INVALID_ARGUMENT) || !CHECK(strstr(err, BAD[i][2]) != NULL))
            fprintf(stderr, "  %s %s: '%s'\n", BAD[i][0], BAD[i][1], err);
        config_free(&cfg);
    }
    /* A flag without its value. */
    CHECK(parse(&cfg, err, sizeof err, (char *[]){"--port", NULL}) == G16_ERR_INVALID_ARGUMENT);
    config_free(&cfg);
    /* Accepted edge values, and --name=value. */
    CHECK(parse(&cfg, err, sizeof err,
                (char *[]){"--port=0", "--max-body", "64M", "--lease", "3600", "--key",
                           "a=x.zkey", "--key", "b.2=y.zkey", "--mem-budget", "1.5G", NULL}) ==
          G16_OK);
    CHECK(cfg.port == 0 && cfg.max_body == 64u << 20 && cfg.lease == 3600);
    CHECK(cfg.n_keys == 2 && !strcmp(cfg.keys[1].id, "b.2") && !strcmp(cfg.keys[1].path, "y.zkey"));
    CHECK(cfg.mem_budget == 3ull << 29);
    config_free(&cfg);
    CHECK(parse(&cfg, err, sizeof err, (char *[]){"--key", "a=x", "--key", "a=y", NULL}) ==
          G16_ERR_INVALID_ARGUMENT);
    CHECK(strstr(err, "given twice") != NULL);
    config_free(&cfg);
}

static void test_file(void)
{
    char path[PATH_MAX + 16], err[512];
    daemon_config cfg;
    snprintf(path, sizeof path, "%s/c.json", tmp);
    write_file(path, "{\"port\": 9000, \"listen\": \"0.0.0.0\", \"max_body\": \"2M\", "
                     "\"lease\": 12.5, \"input_dirs\": [\"/a\", \"/b\"], "
                     "\"keys\": {\"m\": \"/k/m.zkey\"}, \"concurrency\": 3}");
    /* The file, then flags over it: --port wins, --input-dir replaces the list. */
    CHECK(parse(&cfg, err, sizeof err,
                (char *[]){"--port", "9001", "--config", path, "--input-dir", "/c", NULL}) ==
          G16_OK);
    CHECK(cfg.port == 9001 && !strcmp(cfg.listen, "0.0.0.0") && cfg.max_body == 2u << 20);
    CHECK(cfg.lease == 12.5 && cfg.concurrency == 3);
    CHECK(cfg.input_dirs.count == 1 && !strcmp(cfg.input_dirs.items[0], "/c"));
    CHECK(cfg.n_keys == 1 && !strcmp(cfg.keys[0].id, "m"));
    /* --print-config's JSON is a config file that reads back the same. */
    char *text = config_to_json(&cfg);
    CHECK(text != NULL);
    char back[PATH_MAX + 16];
    snprintf(back, sizeof back, "%s/back.json", tmp);
    write_file(back, text ? text : "");
    daemon_config again;
    CHECK(parse(&again, err, sizeof err, (char *[]){"--config", back, NULL}) == G16_OK);
    char *text2 = config_to_json(&again);
    CHECK(text && text2 && !strcmp(text, text2));
    free(text);
    free(text2);
    config_free(&again);
    config_free(&cfg);

    static const char *const BAD[][2] = {
        {"{\"port\": 70000}", "port = '70000'"},
        {"{\"prot\": 1}", "unknown setting 'prot'"},
        {"{\"listen\": 5}", "listen: want a string"},
        {"{\"input_dirs\": \"/a\"}", "input_dirs: want an array"},
        {"{\"keys\": {\"k\": 1}}", "keys.k: want a path string"},
        {"{\"port\": 1,", "line 1"},
        {"[1]", "want a JSON object"},
        {"{\"port\": 1, \"port\": 2}", "duplicate"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        write_file(path, BAD[i][0]);
        g16_status st = parse(&cfg, err, sizeof err, (char *[]){"--config", path, NULL});
        if (!CHECK(st != G16_OK) || !CHECK(strstr(err, BAD[i][1]) != NULL) ||
            !CHECK(strstr(err, "c.json") != NULL))
            fprintf(stderr, "  %s: '%s'\n", BAD[i][0], err);
        config_free(&cfg);
    }
    CHECK(parse(&cfg, err, sizeof err, (char *[]){"--config", "/nonexistent/c.json", NULL}) ==
          G16_ERR_IO);
    config_free(&cfg);
    /* Malformed (invalid UTF-8), whatever jansson's message quotes of it (fuzz_daemon). */
    write_file(path, "{\"token_file\": \"/unable to open/\xd1\"}");
    CHECK(parse(&cfg, err, sizeof err, (char *[]){"--config", path, NULL}) == G16_ERR_FORMAT);
    config_free(&cfg);
}

static void test_confinement(void)
{
    char in[PATH_MAX], out[PATH_MAX], p[PATH_MAX + 64], q[PATH_MAX + 64];
    snprintf(in, sizeof in, "%s/in", tmp);
    snprintf(out, sizeof out, "%s/input2", tmp); /* shares the prefix "in" */
    CHECK(mkdir(in, 0700) == 0 && mkdir(out, 0700) == 0);
    snprintf(p, sizeof p, "%s/sub", in);
    CHECK(mkdir(p, 0700) == 0);
    snprintf(p, sizeof p, "%s/sub/w.wtns", in);
    write_file(p, "x");
    snprintf(p, sizeof p, "%s/secret", out);
    write_file(p, "x");
    snprintf(q, sizeof q, "%s/link", in);          /* a link to a file outside */
    CHECK(symlink(p, q) == 0);
    snprintf(q, sizeof q, "%s/dirlink", in);       /* a link to a directory outside */
    CHECK(symlink(out, q) == 0);
    snprintf(p, sizeof p, "%s/sub/w.wtns", in);
    snprintf(q, sizeof q, "%s/inner", in);         /* a link staying inside */
    CHECK(symlink(p, q) == 0);
    snprintf(p, sizeof p, "%s/nothere", out);      /* dangling links, out and in */
    snprintf(q, sizeof q, "%s/dangle", in);
    CHECK(symlink(p, q) == 0);
    snprintf(p, sizeof p, "%s/nothere", in);
    snprintf(q, sizeof q, "%s/inner_dangle", in);
    CHECK(symlink(p, q) == 0);
    snprintf(p, sizeof p, "%s/sub/w.wtns", in);

    daemon_list dirs = {.items = (char *[]){in}, .count = 1};
    char *r = NULL;
    CHECK(config_confine_path(&r, &dirs, "sub/w.wtns") == G16_OK && r && strstr(r, "/in/sub/w.wtns"));
    free(r);
    CHECK(config_confine_path(&r, &dirs, p) == G16_OK);
    free(r);
    CHECK(config_confine_path(&r, &dirs, "sub/../sub/./w.wtns") == G16_OK);
    free(r);
    CHECK(config_confine_path(&r, &dirs, "inner") == G16_OK);
    free(r);
    /* Outside, existing or not: refused alike (a missing file outside is not "missing"). */
    static const char *const ESCAPES[] = {"../input2/secret", "link", "dirlink/secret",
                                          "sub/../../input2/secret", "/etc/passwd",
                                          "../input2/missing", "/etc/no-such-file",
                                          "../../../../../../../../../../../nowhere",
                                          "sub/../../in2/x", "/",
                                          /* through a link inside that leads out */
                                          "dirlink/missing", "dirlink/../missing",
                                          "dirlink/secret/x", "dangle", "dangle/x",
                                          "inner_dangle"};
    for (size_t i = 0; i < sizeof ESCAPES / sizeof ESCAPES[0]; i++) {
        r = (char *)1;
        g16_status st = config_confine_path(&r, &dirs, ESCAPES[i]);
        if (!CHECK(st == G16_ERR_INVALID_ARGUMENT && r == NULL) ||
            !CHECK(strstr(g16_last_error(), "outside the input directories") != NULL))
            fprintf(stderr, "  %s: %s\n", ESCAPES[i], g16_last_error());
    }
    CHECK(config_confine_path(&r, &dirs, "missing.wtns") == G16_ERR_IO);
    CHECK(config_confine_path(&r, &dirs, "sub/../missing.wtns") == G16_ERR_IO);
    CHECK(config_confine_path(&r, &dirs, "sub/missing/x") == G16_ERR_IO);
    CHECK(config_confine_path(&r, &dirs, "inner/../missing") == G16_ERR_IO); /* inner: a file */
    /* The directory as written, with "." and ".." and doubled slashes: still inside. */
    char messy[PATH_MAX + 64];
    snprintf(messy, sizeof messy, "%s/.//sub/../sub//w.wtns", in);
    CHECK(config_confine_path(&r, &dirs, messy) == G16_OK);
    free(r);
    CHECK(config_confine_path(&r, &dirs, "") == G16_ERR_INVALID_ARGUMENT);
    daemon_list none = {0};
    CHECK(config_confine_path(&r, &none, p) == G16_ERR_INVALID_ARGUMENT);
    CHECK(strstr(g16_last_error(), "no input directories") != NULL);
    /* A relative input directory (from the working directory), either way. */
    char cwd[PATH_MAX];
    if (CHECK(getcwd(cwd, sizeof cwd) != NULL) && CHECK(chdir(tmp) == 0)) {
        daemon_list rel = {.items = (char *[]){"./in/"}, .count = 1};
        CHECK(config_confine_path(&r, &rel, "sub/w.wtns") == G16_OK);
        free(r);
        CHECK(config_confine_path(&r, &rel, p) == G16_OK);
        free(r);
        CHECK(config_confine_path(&r, &rel, "../input2/missing") == G16_ERR_INVALID_ARGUMENT);
        CHECK(config_confine_path(&r, &rel, "missing") == G16_ERR_IO);
        CHECK(chdir(cwd) == 0);
    }
    /* Two directories: the second one counts too. */
    daemon_list two = {.items = (char *[]){in, out}, .count = 2};
    snprintf(p, sizeof p, "%s/secret", out);
    CHECK(config_confine_path(&r, &two, p) == G16_OK);
    free(r);
}

int main(void)
{
    test_init("test_daemon_config");
    snprintf(tmp, sizeof tmp, "/tmp/g16-test-config-XXXXXX");
    if (!CHECK(mkdtemp(tmp) != NULL))
        return test_finish();
    test_defaults_and_bounds();
    test_file();
    test_confinement();
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmp);
    return test_finish();
}
