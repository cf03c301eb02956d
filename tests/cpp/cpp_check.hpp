// cpp_check.hpp - the checks of the C++ test programs: CHECK(cond) counts a check and prints
// the failed condition with its file and line; finish(name) prints the summary line the ctest
// regex looks for and returns the exit status.
#ifndef SATFEAT_CPP_CHECK_HPP
#define SATFEAT_CPP_CHECK_HPP

#include <cstdio>

namespace cpp_check {

inline int checks = 0, failures = 0;

/** Counts a check; prints the failed condition. */
inline void check(bool ok, const char *what, const char *file, int line)
{
    ++checks;
    if (ok) return;
    ++failures;
    std::fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
}

/** Counts a failed check with a message of the caller's. */
inline void fail(const char *file, int line, const char *message)
{
    ++checks;
    ++failures;
    std::fprintf(stderr, "%s:%d: %s\n", file, line, message);
}

/** Prints "NAME: N checks passed" (0) or the failure count (1) and returns the exit status. */
inline int finish(const char *name)
{
    if (failures) {
        std::fprintf(stderr, "%s: %d of %d checks failed\n", name, failures, checks);
        return 1;
    }
    std::printf("%s: %d checks passed\n", name, checks);
    return 0;
}

} // namespace cpp_check

#define CHECK(cond) cpp_check::check((cond), #cond, __FILE__, __LINE__)

#endif
