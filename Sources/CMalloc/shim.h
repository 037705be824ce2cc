// glibc's malloc tuning (`mallopt`, `M_MMAP_THRESHOLD`, `M_TRIM_THRESHOLD`): declared in
// <malloc.h>, which the Swift toolchain's Glibc module does not include.
#if defined(__linux__)
#include <malloc.h>
#endif
