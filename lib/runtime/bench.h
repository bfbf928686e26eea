/*
 * The runtime's benchmark baseline, for lib/bench (terrafit bench, make
 * bench) and the tests: the one runtime entry point outside the public API
 * that code beyond lib/runtime may call, because it measures the runtime's
 * own evaluation path. Not exported by the installed library.
 */
#ifndef TF_RUNTIME_BENCH_H
#define TF_RUNTIME_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "terrafit/runtime.h"

/* The benchmarks' baseline (docs/performance.md): at the samples of
 * tf_terrain_sample_window's row (x = x0 + (double)(i0 + i) * step, i <
 * n, at y), a plain fractal sum of the base noises of layers 0 .. octaves
 * - 1 (each layer's kind, seed, frequency and offsets) with amplitudes 1,
 * 1/2, 1/4, ..., computed the way the terrain computes a layer (chunks,
 * the same vector steps) and nothing else: no rd curve, mask or output
 * curve. */
void tf_fractal_sum_row(const tf_terrain *t, size_t octaves, double x0, double step, int64_t i0,
                        double y, size_t n, float *out);

#endif
