/* wl_test.c: the unit-test main: runs wl_test_main() and reports checks and failures. */
#include "wl_test.h"

#include <stdlib.h>

int wl_test_failures;
int wl_test_checks;

const char *wl_test_data(const char *name)
{
    static char buf[4096];
    const char *dir = getenv("WL_TEST_DATA");
    snprintf(buf, sizeof buf, "%s/%s", dir ? dir : "tests/data", name);
    return buf;
}

int main(void)
{
    wl_test_main();
    printf("%d checks, %d failed\n", wl_test_checks, wl_test_failures);
    if (wl_test_checks == 0) {
        fprintf(stderr, "no checks ran\n");
        return 1;
    }
    return wl_test_failures ? 1 : 0;
}
