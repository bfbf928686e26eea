/*
 * Fuzz target "points": bytes -> tf_points_read, the line reader of
 * `terrafit sample`, and each point sampled as the tool samples it; the
 * points written back as text must read back the same.
 */
#define _POSIX_C_SOURCE 200809L /* fmemopen */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "terrafit/terrafit.h"
#include "fuzz.h"

#define MAX_POINTS 4096

typedef struct {
    const tf_terrain *terrain;
    double xy[2 * MAX_POINTS];
    size_t count;
} points;

static int take(void *user, double x, double y)
{
    points *p = user;
    FUZZ_CHECK(isfinite(x) && isfinite(y), "a point that is not finite: %g %g", x, y);
    /* A finite height is promised inside the noises' domain: a
     * noise-space coordinate below 2^52 (docs/spec.md; this spec's
     * frequencies are at most 1). */
    if (p->terrain && fabs(x) < 0x1p51 && fabs(y) < 0x1p51)
        FUZZ_CHECK(isfinite(tf_terrain_sample(p->terrain, x, y)),
                   "a finite point %.17g %.17g has a height that is not", x, y);
    if (p->count == MAX_POINTS)
        return 7; /* stops the read: the target's own limit */
    p->xy[2 * p->count] = x;
    p->xy[2 * p->count + 1] = y;
    p->count++;
    return 0;
}

/* The terrain every point is sampled on: a spec of the tests' kind. */
static const tf_terrain *terrain(void)
{
    static tf_terrain *t;
    static const char spec[] =
        "{\"version\": 1, \"seed\": 3, \"noiseLayers\": [{\"baseNoise\": {\"frequency\": 0.01},"
        " \"rd\": {\"points\": [{\"x\": 0, \"y\": 0}, {\"x\": 1, \"y\": 1}]}}]}";
    if (!t) {
        tf_error err;
        tf_spec *s = tf_spec_parse(spec, sizeof spec - 1, "fuzz_points", &err);
        FUZZ_CHECK(s, "the target's spec is refused: %s", err.message);
        t = tf_terrain_compile(s, &err);
        tf_spec_free(s);
        FUZZ_CHECK(t, "the target's spec does not compile: %s", err.message);
    }
    return t;
}

static points first, second;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0; /* fmemopen refuses a buffer of size 0 */
    FILE *in = fmemopen((void *)data, size, "r");
    FUZZ_CHECK(in, "fmemopen failed");
    first.terrain = terrain();
    first.count = 0;
    tf_error err;
    int status = tf_points_read(in, NULL, take, &first, &err);
    fclose(in);
    FUZZ_CHECK(status == 0 || status == -1 || status == 7, "tf_points_read returned %d", status);
    if (status == -1)
        FUZZ_CHECK(strncmp(err.message, "input:", 6) == 0 &&
                       (err.code == TF_ERR_PARSE || err.code == TF_ERR_LIMIT),
                   "an error without the input's name or a parse code: %d %s", err.code,
                   err.message);

    /* The points read, written as `terrafit sample` users write them, read
     * back bit for bit. */
    char *text = NULL;
    size_t text_size = 0;
    FILE *out = open_memstream(&text, &text_size);
    FUZZ_CHECK(out, "open_memstream failed");
    for (size_t i = 0; i < first.count; i++)
        fprintf(out, "%.17g\t%.17g\r\n", first.xy[2 * i], first.xy[2 * i + 1]);
    fputs("# end\n", out);
    fclose(out);
    in = fmemopen(text, text_size, "r");
    FUZZ_CHECK(in, "fmemopen failed");
    second.terrain = NULL;
    second.count = 0;
    status = tf_points_read(in, "again", take, &second, &err);
    fclose(in);
    free(text);
    FUZZ_CHECK(status == 0, "the points written back do not read: %s", err.message);
    FUZZ_CHECK(second.count == first.count &&
                   memcmp(second.xy, first.xy, sizeof first.xy[0] * 2 * first.count) == 0,
               "the points written back read differently");
    return 0;
}
