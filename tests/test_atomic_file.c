/* util/atomic_file: output files replaced whole. A new file has the umask's mode; a
 * replaced one has exactly the new bytes and keeps its mode; a write that fails (the file
 * size limit, in a child process) or is discarded leaves the old file as it was; no
 * temporary is ever left behind; a link is followed and kept, a link to nowhere makes the
 * file it names; /dev/null is written in place, and /dev/stdout through stdout itself
 * (a file between two lines of a child's stdout); a name without a directory lands in the
 * working directory; a missing directory or a directory as the target is an I/O error
 * naming the path; two threads replacing one file leave one of their contents whole; two
 * files finished together are committed together, or both left as they were. */
#include <errno.h>
#include <glob.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "util/atomic_file.h"
#include "util/status.h"

static char dir[512];

/* The whole file at path into buf (NUL-terminated); its length, or -1. */
static long slurp(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, cap - 1, f);
    fclose(f);
    buf[n] = '\0';
    return (long)n;
}

static bool has(const char *path, const char *want)
{
    char buf[8192];
    return slurp(path, buf, sizeof buf) == (long)strlen(want) && !strcmp(buf, want);
}

/* No temporaries in the test's directory. */
static size_t temporaries(void)
{
    char pattern[600];
    snprintf(pattern, sizeof pattern, "%s/*.tmp-*", dir);
    glob_t g;
    size_t n = glob(pattern, 0, NULL, &g) == 0 ? g.gl_pathc : 0;
    globfree(&g);
    return n;
}

/* In a child limited to 64-byte files: replaces path with 4 KiB; the child's exit code
 * says whether the write failed as an I/O error naming path (0) or not (1). */
static bool fails_in_child(const char *path, bool streamed)
{
    fflush(stdout); /* nothing of the parent's printed twice */
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN); /* EFBIG from write, not the signal */
        struct rlimit lim = {64, 64};
        if (setrlimit(RLIMIT_FSIZE, &lim) != 0)
            _exit(1);
        static char big[4096];
        memset(big, 'x', sizeof big);
        g16_status st;
        if (streamed) {
            atomic_file af;
            if (atomic_file_open(&af, path))
                _exit(1);
            fwrite(big, sizeof big, 1, af.f);
            st = atomic_file_commit(&af);
        } else {
            st = atomic_file_write(path, big, sizeof big);
        }
        _exit(st == G16_ERR_IO && strstr(g16_last_error(), path) ? 0 : 1);
    }
    int status = 0;
    return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
           WEXITSTATUS(status) == 0;
}

/* In a child whose stdout is a file: a line, /dev/stdout written whole, a line. The file
 * holds all three in order (/dev/stdout is stdout's descriptor, not a file to replace). */
static bool stdout_between_lines(void)
{
    char out[600];
    snprintf(out, sizeof out, "%s/stdout.txt", dir);
    fflush(stdout); /* nothing of the parent's printed twice */
    pid_t pid = fork();
    if (pid == 0) {
        FILE *f = freopen(out, "w", stdout);
        if (!f)
            _exit(1);
        fputs("before\n", stdout);
        fflush(stdout);
        g16_status st = atomic_file_write("/dev/stdout", "written\n", 8);
        fputs("after\n", stdout);
        fflush(stdout);
        _exit(st == G16_OK ? 0 : 1);
    }
    int status = 0;
    bool ok = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
              WEXITSTATUS(status) == 0 && has(out, "before\nwritten\nafter\n");
    unlink(out);
    return ok;
}

typedef struct {
    const char *path;
    char fill;
    int failures;
} racer;

static void *race(void *arg)
{
    racer *r = arg;
    char text[2000];
    memset(text, r->fill, sizeof text - 1);
    text[sizeof text - 1] = '\0';
    for (int i = 0; i < 200; i++)
        r->failures += atomic_file_write(r->path, text, strlen(text)) != G16_OK;
    return NULL;
}

int main(void)
{
    test_init("atomic_file");
    const char *tmpdir = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/test_atomic_file_XXXXXX",
             tmpdir && *tmpdir ? tmpdir : "/tmp");
    if (!CHECK(mkdtemp(dir) != NULL))
        return test_finish();
    umask(022);
    char path[600], link_path[600], missing[600];
    snprintf(path, sizeof path, "%s/out.json", dir);
    snprintf(link_path, sizeof link_path, "%s/link.json", dir);
    snprintf(missing, sizeof missing, "%s/no/such/dir/out.json", dir);

    /* New, then replaced. */
    CHECK(atomic_file_write(path, "first\n", 6) == G16_OK);
    CHECK(has(path, "first\n"));
    struct stat st;
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644);
    CHECK(atomic_file_write(path, "second, longer\n", 15) == G16_OK);
    CHECK(has(path, "second, longer\n"));
    CHECK(atomic_file_write(path, "", 0) == G16_OK);
    CHECK(has(path, ""));
    CHECK(atomic_file_write(path, "kept\n", 5) == G16_OK);
    CHECK(temporaries() == 0);

    /* Failures and a discard keep the old file. */
    CHECK(fails_in_child(path, false));
    CHECK(fails_in_child(path, true));
    CHECK(has(path, "kept\n"));
    atomic_file af;
    if (CHECK(atomic_file_open(&af, path) == G16_OK)) {
        fputs("half a file", af.f);
        CHECK(temporaries() == 1);
        atomic_file_discard(&af);
    }
    CHECK(has(path, "kept\n"));
    CHECK(temporaries() == 0);

    /* Two files that belong together: both finished before either is committed. Finished
     * and discarded, the old one stays; finished and committed, the new one lands; a
     * partner that fails to finish (/dev/full) leaves the first one as it was. */
    char partner[600];
    snprintf(partner, sizeof partner, "%s/partner.json", dir);
    CHECK(atomic_file_write(partner, "old partner\n", 12) == G16_OK);
    atomic_file first, second;
    if (CHECK(atomic_file_open(&first, path) == G16_OK)) {
        fputs("staged\n", first.f);
        CHECK(atomic_file_finish(&first) == G16_OK);
        CHECK(first.f == NULL && temporaries() == 1);
        CHECK(has(path, "kept\n")); /* finished, not in place yet */
        atomic_file_discard(&first);
    }
    CHECK(has(path, "kept\n"));
    CHECK(temporaries() == 0);
    if (CHECK(atomic_file_open(&first, path) == G16_OK) &&
        CHECK(atomic_file_open(&second, partner) == G16_OK)) {
        fputs("new pair\n", first.f);
        fputs("new partner\n", second.f);
        CHECK(atomic_file_finish(&first) == G16_OK);
        CHECK(atomic_file_finish(&second) == G16_OK);
        CHECK(atomic_file_commit(&first) == G16_OK);
        CHECK(atomic_file_commit(&second) == G16_OK);
    }
    CHECK(has(path, "new pair\n") && has(partner, "new partner\n"));
    if (access("/dev/full", W_OK) != 0)
        printf("  skipped: the partner on /dev/full (no /dev/full here)\n");
    else if (CHECK(atomic_file_open(&first, path) == G16_OK) &&
             CHECK(atomic_file_open(&second, "/dev/full") == G16_OK)) {
        fputs("lone\n", first.f);
        fputs("no room\n", second.f);
        CHECK(atomic_file_finish(&first) == G16_OK);
        g16_status full = atomic_file_finish(&second);
        CHECK(full == G16_ERR_IO && strstr(g16_last_error(), "/dev/full"));
        CHECK(second.name == NULL); /* released by the failure */
        if (full)
            atomic_file_discard(&first);
        else
            CHECK(atomic_file_commit(&first) == G16_OK);
    }
    CHECK(has(path, "new pair\n"));
    CHECK(temporaries() == 0);
    CHECK(atomic_file_write(path, "kept\n", 5) == G16_OK);
    unlink(partner);

    /* A link: its file replaced, the link kept. */
    CHECK(symlink("out.json", link_path) == 0);
    CHECK(atomic_file_write(link_path, "through the link\n", 17) == G16_OK);
    CHECK(lstat(link_path, &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(has(path, "through the link\n"));

    /* A replaced file keeps its mode. */
    CHECK(chmod(path, 0600) == 0);
    CHECK(atomic_file_write(path, "private\n", 8) == G16_OK);
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
    CHECK(has(path, "private\n"));

    /* A link to nowhere: the file it names is made, the link kept. */
    char dangling[600], made[600];
    snprintf(dangling, sizeof dangling, "%s/dangling.json", dir);
    snprintf(made, sizeof made, "%s/made.json", dir);
    CHECK(symlink("made.json", dangling) == 0);
    CHECK(atomic_file_write(dangling, "made\n", 5) == G16_OK);
    CHECK(lstat(dangling, &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(has(made, "made\n"));

    /* Not a regular file: written in place. */
    CHECK(atomic_file_write("/dev/null", "gone\n", 5) == G16_OK);
    CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
    CHECK(stdout_between_lines());

    /* A name without a directory, in the working directory. */
    char cwd[4096];
    if (CHECK(getcwd(cwd, sizeof cwd) != NULL) && CHECK(chdir(dir) == 0)) {
        CHECK(atomic_file_write("plain.json", "plain\n", 6) == G16_OK);
        CHECK(has("plain.json", "plain\n"));
        CHECK(temporaries() == 0);
        unlink("plain.json");
        CHECK(chdir(cwd) == 0);
    }

    /* Nowhere to write: a missing directory, a directory. */
    CHECK(atomic_file_write(missing, "x", 1) == G16_ERR_IO);
    CHECK(strstr(g16_last_error(), missing) != NULL);
    CHECK(atomic_file_write(dir, "x", 1) == G16_ERR_IO);
    CHECK(strstr(g16_last_error(), dir) != NULL);

    /* Two writers of one path. */
    racer r[2] = {{path, 'a', 0}, {path, 'b', 0}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&t[i], NULL, race, &r[i]) == 0);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    CHECK(r[0].failures == 0 && r[1].failures == 0);
    char buf[4096];
    long n = slurp(path, buf, sizeof buf);
    CHECK(n == 1999 && strspn(buf, buf[0] == 'a' ? "a" : "b") == 1999);
    CHECK(temporaries() == 0);

    unlink(link_path);
    unlink(dangling);
    unlink(made);
    unlink(path);
    CHECK(rmdir(dir) == 0);
    return test_finish();
}
