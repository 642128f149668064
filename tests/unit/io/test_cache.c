/* test_cache.c: the shared cache: first use by many processes at once, corrupt, truncated and untrusted entries,
 * eviction of the entry used longest ago, a folder this process may not write, and the bypass. */
#include "wl_cache.h"
#include "wl_test.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PAYLOAD 100000

static char dir[256], counter[PATH_MAX], started[PATH_MAX];

/* Each computation appends one byte to the counter file, so that computations in every process are counted. */
static size_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) ? 0 : (size_t)st.st_size;
}

static void append(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
        if (write(fd, "x", 1) != 1) perror("append");
        close(fd);
    }
}

typedef struct job {
    unsigned char seed;
    size_t len;
    size_t wait_started;   /* > 0: the computation waits until this many processes have started asking */
} job;

static int fill(void *ud, unsigned char **data, size_t *len, wl_err *err)
{
    job *j = ud;
    (void)err;
    append(counter);
    while (j->wait_started && file_size(started) < j->wait_started) nanosleep(&(struct timespec){0, 1000000}, NULL);
    *data = malloc(WL_CACHE_HEAD + j->len);
    for (size_t i = 0; i < j->len; i++) (*data)[WL_CACHE_HEAD + i] = (unsigned char)(j->seed + i * 7);
    *len = j->len;
    return 0;
}

static int payload_ok(const wl_cache_entry *e, const job *j)
{
    if (e->len != j->len) return 0;
    for (size_t i = 0; i < j->len; i++)
        if (e->data[i] != (unsigned char)(j->seed + i * 7)) return 0;
    return 1;
}

static char notes[4096];
static void note(void *ud, const char *msg)
{
    (void)ud;
    strncat(notes, msg, sizeof notes - strlen(notes) - 2);
    strcat(notes, "\n");
}

static char path_of[PATH_MAX];
/* Computes and stores name's entry; its file. */
static const char *entry_path(const wl_cache *c, const char *name, const job *j)
{
    wl_cache_entry e;
    wl_err err = {""};
    if (wl_cache_get(c, name, fill, (void *)j, &e, &err)) return NULL;
    wl_cache_release(&e);
    return wl_cache_entry_path(c, name, path_of, sizeof path_of) == 0 && access(path_of, F_OK) == 0 ? path_of : NULL;
}

static void test_concurrent_first_use(void)
{
    wl_cache c = {.dir = dir};
    job j = {.seed = 3, .len = PAYLOAD, .wait_started = 0};
    enum { N = 16 };
    int go[2];
    CHECK(pipe(go) == 0);
    pid_t pid[N];
    for (int i = 0; i < N; i++) {
        if ((pid[i] = fork()) == 0) {
            close(go[1]);
            char b;
            if (read(go[0], &b, 1) < 0) _exit(3);   /* EOF: every process starts at once */
            append(started);
            j.wait_started = N;   /* whoever computes waits until all have asked */
            wl_cache_entry e;
            wl_err err = {""};
            int rc = wl_cache_get(&c, "concurrent entry", fill, &j, &e, &err);
            int ok = rc == 0 && payload_ok(&e, &j) && e.maplen > 0;
            wl_cache_release(&e);
            _exit(ok ? 0 : 1);
        }
    }
    close(go[0]);
    close(go[1]);
    int good = 0;
    for (int i = 0; i < N; i++) {
        int st;
        waitpid(pid[i], &st, 0);
        good += WIFEXITED(st) && WEXITSTATUS(st) == 0;
    }
    CHECK_MSG(good == N, "%d of %d processes read the entry", good, N);
    CHECK_MSG(file_size(counter) == 1, "computed %zu times by %d processes asking at once", file_size(counter), N);
}

static void test_corrupt_truncated_untrusted(void)
{
    wl_cache c = {.dir = dir, .note = note};
    job j = {.seed = 9, .len = PAYLOAD};
    const char *p = entry_path(&c, "damaged entry", &j);
    CHECK(p != NULL);
    if (!p) return;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", p);
    struct {
        const char *what, *said;
    } cases[] = {{"flip", "does not match its hash"}, {"truncate", "truncated"}, {"chmod", "someone other"},
                 {"header", "not the entry's"}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        if (!strcmp(cases[k].what, "flip") || !strcmp(cases[k].what, "header")) {
            int fd = open(path, O_RDWR);
            unsigned char b;
            off_t at = !strcmp(cases[k].what, "flip") ? WL_CACHE_HEAD + PAYLOAD / 2 : 3;
            CHECK(pread(fd, &b, 1, at) == 1);
            b ^= 0x40;
            CHECK(pwrite(fd, &b, 1, at) == 1);
            close(fd);
        } else if (!strcmp(cases[k].what, "truncate")) {
            CHECK(truncate(path, WL_CACHE_HEAD + 10) == 0);
        } else {
            CHECK(chmod(path, 0666) == 0);
        }
        notes[0] = 0;
        size_t before = file_size(counter);
        wl_cache_entry e;
        wl_err err = {""};
        CHECK(wl_cache_get(&c, "damaged entry", fill, &j, &e, &err) == 0);
        CHECK_MSG(payload_ok(&e, &j), "%s: the payload is not the computed one", cases[k].what);
        CHECK_MSG(!e.cached && file_size(counter) == before + 1, "%s: the entry was not computed again", cases[k].what);
        CHECK_MSG(strstr(notes, cases[k].said) && strstr(notes, "is not used"), "%s: the note says: %s", cases[k].what, notes);
        wl_cache_release(&e);
        /* replaced: the next read uses the new entry, silently */
        notes[0] = 0;
        CHECK(wl_cache_get(&c, "damaged entry", fill, &j, &e, &err) == 0);
        CHECK_MSG(e.cached && payload_ok(&e, &j) && file_size(counter) == before + 1 && !notes[0],
                  "%s: the replaced entry is not read back: %s", cases[k].what, notes);
        struct stat st;
        CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644);
        wl_cache_release(&e);
    }
}

static void test_eviction(void)
{
    char sub[PATH_MAX];
    snprintf(sub, sizeof sub, "%s/evict", dir);
    size_t entry = WL_CACHE_HEAD + 1000;
    wl_cache c = {.dir = sub, .limit = 3 * entry};
    job j = {.seed = 1, .len = 1000};
    const char *names[] = {"A", "B", "C"};
    static char paths[3][PATH_MAX];
    for (int i = 0; i < 3; i++) {
        j.seed = (unsigned char)(10 + i);
        const char *p = entry_path(&c, names[i], &j);
        CHECK(p != NULL);
        snprintf(paths[i], sizeof paths[i], "%s", p ? p : "");
        /* used at times 1000 + i seconds after the epoch: A longest ago */
        struct timespec t[2] = {{1000 + i, 0}, {1000 + i, 0}};
        utimensat(AT_FDCWD, paths[i], t, 0);
    }
    /* reading A makes it the most recently used; B is now the oldest */
    wl_cache_entry e;
    wl_err err = {""};
    j.seed = 10;
    CHECK(wl_cache_get(&c, "A", fill, &j, &e, &err) == 0 && e.cached);
    wl_cache_release(&e);
    /* a temporary file of a writer that died long ago, and one being written now */
    char dead[PATH_MAX + 16], live[PATH_MAX + 16];
    snprintf(dead, sizeof dead, "%s/.tmp-1-dead", sub);
    snprintf(live, sizeof live, "%s/.tmp-2-live", sub);
    fclose(fopen(dead, "w"));
    fclose(fopen(live, "w"));
    struct timespec old[2] = {{1000, 0}, {1000, 0}};
    utimensat(AT_FDCWD, dead, old, 0);
    j.seed = 13;
    CHECK(entry_path(&c, "D", &j) != NULL);
    CHECK_MSG(access(dead, F_OK) != 0 && access(live, F_OK) == 0, "stale temporary files: the dead one goes, the live one stays");
    CHECK_MSG(access(paths[0], F_OK) == 0, "A (used last) was evicted");
    CHECK_MSG(access(paths[1], F_OK) != 0, "B (used longest ago) was kept past the limit");
    CHECK_MSG(access(paths[2], F_OK) == 0, "C was evicted though the limit needed one entry gone");
    /* an entry larger than the limit is computed and given, never stored: it would evict every other entry */
    notes[0] = 0;
    c.note = note;
    job big = {.seed = 14, .len = 4 * entry};
    CHECK(wl_cache_get(&c, "E", fill, &big, &e, &err) == 0);
    CHECK_MSG(payload_ok(&e, &big) && !e.cached, "the oversized entry's payload is not the computed one");
    wl_cache_release(&e);
    CHECK_MSG(wl_cache_entry_path(&c, "E", path_of, sizeof path_of) == 0 && access(path_of, F_OK) != 0,
              "an entry over the limit was stored");
    CHECK_MSG(strstr(notes, "over the cache's limit") != NULL, "the note says: %s", notes);
    CHECK_MSG(access(paths[0], F_OK) == 0 && access(paths[2], F_OK) == 0, "the oversized entry evicted others");
}

static void test_not_mine_and_bypass(void)
{
    char sub[PATH_MAX];
    snprintf(sub, sizeof sub, "%s/foreign", dir);
    CHECK(mkdir(sub, 0755) == 0);
    /* a folder this process may not write: another owner (as root), or no write permission */
    if (geteuid() == 0) CHECK(chown(sub, 12345, 12345) == 0);
    else CHECK(chmod(sub, 0555) == 0);
    wl_cache c = {.dir = sub, .note = note};
    job j = {.seed = 5, .len = 5000};
    size_t before = file_size(counter);
    for (int round = 0; round < 2; round++) {
        wl_cache_entry e;
        wl_err err = {""};
        CHECK(wl_cache_get(&c, "foreign", fill, &j, &e, &err) == 0);
        CHECK(payload_ok(&e, &j) && !e.cached && e.maplen == 0);
        wl_cache_release(&e);
    }
    CHECK_MSG(file_size(counter) == before + 2, "a folder that is not this process's: computed each time");
    char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A %s)\"", sub);
    CHECK_MSG(system(cmd) == 0, "something was written into a folder that is not this process's");
    chmod(sub, 0755);

    /* no folder: the bypass computes every time and stores nothing */
    wl_cache off = {.dir = NULL};
    before = file_size(counter);
    for (int round = 0; round < 2; round++) {
        wl_cache_entry e;
        wl_err err = {""};
        CHECK(wl_cache_get(&off, "bypassed", fill, &j, &e, &err) == 0 && payload_ok(&e, &j) && !e.cached);
        wl_cache_release(&e);
    }
    wl_cache_entry e;
    CHECK(wl_cache_get(NULL, "bypassed", fill, &j, &e, NULL) == 0 && payload_ok(&e, &j) && e.maplen == 0);
    wl_cache_release(&e);
    CHECK(file_size(counter) == before + 3);
}

static void test_file_hash(void)
{
    char path[PATH_MAX + 16], hx[65];
    snprintf(path, sizeof path, "%s/abc.txt", dir);
    FILE *f = fopen(path, "w");
    fputs("abc", f);
    fclose(f);
    wl_err err = {""};
    CHECK(wl_cache_file_hash(path, hx, &err) == 0);
    CHECK(!strcmp(hx, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    unlink(path);
}

void wl_test_main(void)
{
    snprintf(dir, sizeof dir, "/tmp/wl-cache-test-XXXXXX");
    if (!mkdtemp(dir)) {
        CHECK(!"mkdtemp");
        return;
    }
    snprintf(counter, sizeof counter, "%s.count", dir);
    snprintf(started, sizeof started, "%s.started", dir);
    test_concurrent_first_use();
    test_corrupt_truncated_untrusted();
    test_eviction();
    test_not_mine_and_bypass();
    test_file_hash();
    char cmd[3 * PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf %s %s %s", dir, counter, started);
    CHECK(system(cmd) == 0);
}
