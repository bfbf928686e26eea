/*
 * Choosing the evaluation path at run time: AVX2 when the CPU has it (the
 * vector functions carry a target attribute, so the build needs no -m
 * flags), the portable path otherwise or when TERRAFIT_SIMD=none asks.
 * Every path gives the same bits; the choice only changes the speed.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int tf_simd_avx2_available(void)
{
#if TF_HAVE_AVX2_PATH
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") ? 1 : 0;
#else
    return 0;
#endif
}

tf_simd_level tf_simd_select(void)
{
    /* "none" forces the portable path (tests, comparisons); "avx2" and
     * "auto" (or unset) take AVX2 where the CPU can run it. */
    const char *forced = getenv("TERRAFIT_SIMD");
    if (forced && strcmp(forced, "none") == 0)
        return TF_SIMD_NONE;
    return tf_simd_avx2_available() ? TF_SIMD_AVX2 : TF_SIMD_NONE;
}
