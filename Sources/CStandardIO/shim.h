// C's standard output stream, for StandardOutputError: Swift 6 refuses a reference to the
// `stdout` variable (shared mutable state), so the one question asked of it is asked here.
#include <stdio.h>

// Whether a write to standard output has failed since the program started (`ferror`):
// a failed `fwrite` of a large text leaves no buffer behind for a later `fflush` to fail
// on, only this flag.
static inline int archive_standard_output_failed(void) {
    return ferror(stdout);
}
