/*
 * The fitter's size limit: how many reference pixels one fit takes on, so a
 * small file of a large size (a 261 KB all-zero 16384 x 16384 PNG) cannot
 * make tf_fit grow past the machine's memory. Checked before tf_fit allocates.
 */
#include <stdint.h>

#include "analysis/fit_internal.h"
#include "base/error.h"

size_t fit_max_pixels(const tf_fit_options *opt)
{
    return opt->max_pixels ? opt->max_pixels : TF_FIT_DEFAULT_MAX_PIXELS;
}

int fit_check_pixels(const tf_layer_map *const *layers, size_t count, const tf_fit_options *opt,
                     const char *first, tf_error *err)
{
    /* Every layer has the first one's size here, each within
     * TF_MAX_REFERENCE_PIXELS, and count <= TF_MAX_LAYERS: no overflow. */
    const size_t w = layers[0]->width, h = layers[0]->height, pixels = w * h * count;
    const size_t limit = fit_max_pixels(opt);
    if (pixels <= limit)
        return 0;
    if (count == 1)
        tf_error_set(err, TF_ERR_LIMIT,
                     "%s: %zux%zu is %zu pixels, beyond the fit's limit of %zu "
                     "(tf_fit_options.max_pixels; raise it with terrafit fit --max-pixels N: "
                     "a fit may take up to %u bytes of memory a pixel, docs/fitting.md)",
                     first, w, h, pixels, limit, TF_FIT_BYTES_PER_PIXEL);
    else
        tf_error_set(err, TF_ERR_LIMIT,
                     "%s and the other layers: %zu layers of %zux%zu are %zu pixels, beyond "
                     "the fit's limit of %zu (tf_fit_options.max_pixels; raise it with "
                     "terrafit fit --max-pixels N: a fit may take up to %u bytes of memory a "
                     "pixel, docs/fitting.md)",
                     first, count, w, h, pixels, limit, TF_FIT_BYTES_PER_PIXEL);
    return -1;
}
