/* wl_test.h: a tiny unit-test harness: checks count failures, main() runs the registered tests. */
#ifndef WL_TEST_H
#define WL_TEST_H

#include <stdio.h>

extern int wl_test_failures;
extern int wl_test_checks;

#define CHECK(cond) do { wl_test_checks++; if (!(cond)) { wl_test_failures++; \
    fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); } } while (0)
#define CHECK_MSG(cond, ...) do { wl_test_checks++; if (!(cond)) { wl_test_failures++; \
    fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond); \
    fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

/* Each test file defines wl_test_main(), which calls its test functions. */
void wl_test_main(void);

/* Path of a file in tests/data (from WL_TEST_DATA), in a static buffer. */
const char *wl_test_data(const char *name);

#endif
