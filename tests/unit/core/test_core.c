/* test_core.c: error formatting, atomic writes and file reads of the core module. */
#include "wl_core.h"
#include "wl_test.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_fail_formats(void)
{
    wl_err e;
    CHECK(wl_fail(&e, "line %d: %s", 7, "bad") == -1);
    CHECK(strcmp(e.msg, "line 7: bad") == 0);
    CHECK(wl_fail(NULL, "ignored") == -1);
}

static void test_atomic_roundtrip(void)
{
    char dir[] = "/tmp/wl_core_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256];
    snprintf(path, sizeof path, "%s/f.txt", dir);
    wl_err e;
    CHECK(wl_write_atomic(path, "hello", 5, &e) == 0);
    CHECK(wl_write_atomic(path, "world!", 6, &e) == 0);
    char *data;
    size_t len;
    CHECK(wl_read_file(path, &data, &len, &e) == 0);
    CHECK(len == 6 && memcmp(data, "world!", 6) == 0);
    free(data);
    char bad[300];
    snprintf(bad, sizeof bad, "%s/missing/dir/f.txt", dir);
    CHECK(wl_write_atomic(bad, "x", 1, &e) == -1);
    CHECK(strstr(e.msg, bad) != NULL);
    CHECK(wl_read_file(bad, &data, &len, &e) == -1);
    CHECK(strstr(e.msg, "cannot open") != NULL);
    unlink(path);
    rmdir(dir);
}

void wl_test_main(void)
{
    test_fail_formats();
    test_atomic_roundtrip();
}
