/*
 * Choosing the evaluation path at run time: AVX-512 when the CPU (and the
 * OS) has it, else AVX2 when it has that (the vector functions carry a
 * target attribute, so the build needs no -m flags), the portable path
 * otherwise or when TERRAFIT_SIMD asks. Every path gives the same bits;
 * the choice only changes the speed.
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

int tf_simd_avx512_available(void)
{
#if TF_HAVE_AVX512_PATH
    /* GCC's and clang's checks include the OS's saving of the vector
     * state (XGETBV), not only the CPUID bits. */
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                   __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("avx2")
               ? 1
               : 0;
#else
    return 0;
#endif
}

/* The fastest level this CPU runs. */
static tf_simd_level best_level(void)
{
    if (tf_simd_avx512_available())
        return TF_SIMD_AVX512;
    return tf_simd_avx2_available() ? TF_SIMD_AVX2 : TF_SIMD_NONE;
}

tf_simd_level tf_simd_select(void)
{
    /* "none" forces the portable path and "avx2" caps it at AVX2 (tests,
     * comparisons); "avx512", "auto" or unset take the fastest the CPU
     * runs. */
    const char *forced = getenv("TERRAFIT_SIMD");
    tf_simd_level best = best_level();
    if (forced && strcmp(forced, "none") == 0)
        return TF_SIMD_NONE;
    if (forced && strcmp(forced, "avx2") == 0 && best > TF_SIMD_AVX2)
        return TF_SIMD_AVX2;
    return best;
}

const char *tf_terrain_path(const tf_terrain *t)
{
    if (!t)
        return "none";
    return t->simd == TF_SIMD_AVX512 ? "avx512" : t->simd == TF_SIMD_AVX2 ? "avx2" : "none";
}

int tf_terrain_set_path(tf_terrain *t, const char *name, tf_error *err)
{
    if (!t || !name) {
        tf_error_set(err, TF_ERR_ARGUMENT, "tf_terrain_set_path: no terrain or no path name");
        return -1;
    }
    if (strcmp(name, "auto") == 0) {
        t->simd = best_level();
    } else if (strcmp(name, "none") == 0) {
        t->simd = TF_SIMD_NONE;
    } else if (strcmp(name, "avx2") == 0) {
        if (!tf_simd_avx2_available()) {
            tf_error_set(err, TF_ERR_ARGUMENT,
                         "evaluation path 'avx2': this CPU (or build) has no AVX2");
            return -1;
        }
        t->simd = TF_SIMD_AVX2;
    } else if (strcmp(name, "avx512") == 0) {
        if (!tf_simd_avx512_available()) {
            tf_error_set(err, TF_ERR_ARGUMENT,
                         "evaluation path 'avx512': this CPU (or build) has no AVX-512");
            return -1;
        }
        t->simd = TF_SIMD_AVX512;
    } else {
        tf_error_set(err, TF_ERR_ARGUMENT,
                     "unknown evaluation path '%.64s': expected auto, none, avx2 or avx512", name);
        return -1;
    }
    tf_terrain_select_lanes(t);
    tf_error_clear(err);
    return 0;
}
