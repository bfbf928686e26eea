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

const char *tf_terrain_path(const tf_terrain *t)
{
    return t && t->simd == TF_SIMD_AVX2 ? "avx2" : "none";
}

int tf_terrain_set_path(tf_terrain *t, const char *name, tf_error *err)
{
    if (!t || !name) {
        tf_error_set(err, TF_ERR_ARGUMENT, "tf_terrain_set_path: no terrain or no path name");
        return -1;
    }
    if (strcmp(name, "auto") == 0) {
        t->simd = tf_simd_avx2_available() ? TF_SIMD_AVX2 : TF_SIMD_NONE;
    } else if (strcmp(name, "none") == 0) {
        t->simd = TF_SIMD_NONE;
    } else if (strcmp(name, "avx2") == 0) {
        if (!tf_simd_avx2_available()) {
            tf_error_set(err, TF_ERR_ARGUMENT,
                         "evaluation path 'avx2': this CPU (or build) has no AVX2");
            return -1;
        }
        t->simd = TF_SIMD_AVX2;
    } else {
        tf_error_set(err, TF_ERR_ARGUMENT,
                     "unknown evaluation path '%.64s': expected auto, none or avx2", name);
        return -1;
    }
    tf_error_clear(err);
    return 0;
}
