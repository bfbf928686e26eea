/*
 * What several commands mean the same way, written once: the common options
 * (SPEC, -o, --size, --origin, --step, --threads) and their checks, heightmap
 * formats and picture names on the output side, outputs that would overwrite
 * an input or cannot be written, and reading the inputs.
 */
#define _POSIX_C_SOURCE 200809L /* stat, dev_t, ino_t */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

/* ---- the common options */

void cli_common_init(cli_common *c, unsigned long long width, unsigned long long height)
{
    memset(c, 0, sizeof *c);
    c->width = width;
    c->height = height;
    c->step = 1.0;
}

int cli_parse_size(const char *command, const cli_option *opt, const char *arg)
{
    cli_common *c = opt->value;
    bool too_big;
    if (!cli_parse_count_pair(arg, 'x', &c->width, &c->height, &too_big))
        return cli_usage_error(command, "invalid --size '%s': expected WxH, e.g. 512x512", arg);
    if (too_big)
        c->width = c->height = ULLONG_MAX; /* beyond every limit, which says so */
    return CLI_EXIT_OK;
}

int cli_parse_origin(const char *command, const cli_option *opt, const char *arg)
{
    cli_common *c = opt->value;
    if (!cli_parse_double_pair(arg, ',', &c->origin_x, &c->origin_y))
        return cli_usage_error(command, "invalid --origin '%s': expected X,Y, e.g. -256,128.5",
                               arg);
    return CLI_EXIT_OK;
}

int cli_common_operands(const char *command, cli_common *c, int count, char **operands,
                        const char *spec_name, const char *spec_what, const char *out_name,
                        const char *out_what)
{
    if (count == 0)
        return cli_usage_error(command, "missing %s (%s)", spec_name, spec_what);
    if (count > 1)
        return cli_usage_error(command, "one %s expected, got '%s' and '%s'", spec_name,
                               operands[0], operands[1]);
    c->spec = operands[0];
    if (out_name && !c->output)
        return cli_usage_error(command, "missing -o %s (%s)", out_name, out_what);
    return CLI_EXIT_OK;
}

int cli_common_image_size(const char *command, const cli_common *c)
{
    if (c->width < 1 || c->width > TF_MAX_IMAGE_SIDE || c->height < 1 ||
        c->height > TF_MAX_IMAGE_SIDE)
        return cli_usage_error(command, "invalid --size '%s': each side must be 1 to %u",
                               c->size_text, TF_MAX_IMAGE_SIDE);
    if (c->width * c->height > TF_MAX_IMAGE_PIXELS)
        return cli_usage_error(command, "invalid --size '%s': %llu pixels, more than the %zu "
                                        "an image may have",
                               c->size_text, c->width * c->height, TF_MAX_IMAGE_PIXELS);
    return CLI_EXIT_OK;
}

/* ---- files a command reads and writes */

/* A file's identity: its device and inode when it exists; else its folder's
 * and its last component, which is what creating it would bind. */
typedef struct {
    bool exists, known;
    dev_t dev;
    ino_t ino;
    const char *base; /* for a file that does not exist */
} file_id;

/* The folder part of `path` ("a/b/" of "a/b/c"), in *dir (NULL for none:
 * the current folder). Returns false when out of memory. */
static bool folder_of(const char *path, char **dir)
{
    size_t dir_len = (size_t)(cli_base_name(path) - path);
    *dir = NULL;
    if (!dir_len)
        return true;
    if (!(*dir = malloc(dir_len + 1)))
        return false;
    memcpy(*dir, path, dir_len);
    (*dir)[dir_len] = '\0';
    return true;
}

static file_id identify(const char *path)
{
    file_id id = {0};
    struct stat st;
    if (stat(path, &st) == 0) {
        id.exists = id.known = true;
        id.dev = st.st_dev;
        id.ino = st.st_ino;
        return id;
    }
    char *dir;
    if (!folder_of(path, &dir))
        return id; /* unknown: compared with nothing */
    if (stat(dir ? dir : ".", &st) == 0) {
        id.known = true;
        id.dev = st.st_dev;
        id.ino = st.st_ino;
        id.base = cli_base_name(path);
    }
    free(dir);
    return id;
}

static bool same_id(file_id a, file_id b)
{
    return a.known && b.known && a.exists == b.exists && a.dev == b.dev && a.ino == b.ino &&
           (a.exists || strcmp(a.base, b.base) == 0);
}

int cli_check_files(const char *command, const cli_file *inputs, size_t input_count,
                    const cli_file *outputs, size_t output_count)
{
    for (size_t i = 0; i < output_count; i++) {
        if (!outputs[i].path)
            continue;
        file_id out = identify(outputs[i].path);
        for (size_t j = 0; j < input_count; j++)
            if (inputs[j].path && same_id(out, identify(inputs[j].path)))
                return cli_usage_error(command,
                                       "%s '%s' is the same file as %s '%s': writing it would "
                                       "destroy the input (choose another name)",
                                       outputs[i].role, outputs[i].path, inputs[j].role,
                                       inputs[j].path);
        for (size_t j = 0; j < i; j++)
            if (outputs[j].path && same_id(out, identify(outputs[j].path)))
                return cli_usage_error(command, "%s '%s' and %s '%s' name the same file",
                                       outputs[j].role, outputs[j].path, outputs[i].role,
                                       outputs[i].path);
    }
    for (size_t i = 0; i < output_count; i++) {
        /* Asked before the work, so that a long render or fit does not end
         * in an error it could have given at once; the writer checks again
         * when it creates the file. */
        tf_error err;
        if (outputs[i].path && tf_atomic_check(outputs[i].path, &err) != 0)
            return cli_fail_error(command, &err);
    }
    return CLI_EXIT_OK;
}

/* ---- heightmap and picture outputs */

const char *cli_heightmap_format_names(void)
{
    /* From the library's own table, so a new format shows everywhere. */
    static char names[256];
    if (names[0])
        return names;
    size_t used = 0;
    for (int k = 0; k < TF_HEIGHTMAP_FORMAT_COUNT; k++) {
        const char *name = tf_heightmap_format_name((tf_heightmap_format)k);
        const char *sep = k == 0 ? "" : k + 1 == TF_HEIGHTMAP_FORMAT_COUNT ? " or " : ", ";
        int w = snprintf(names + used, sizeof names - used, "%s%s", sep, name ? name : "?");
        if (w < 0 || (size_t)w >= sizeof names - used)
            break;
        used += (size_t)w;
    }
    return names;
}

int cli_parse_heightmap_format(const char *command, const cli_option *opt, const char *arg)
{
    if (tf_heightmap_format_from_name(arg, opt->value) != 0)
        return cli_usage_error(command, "invalid --format '%s': expected %s", arg,
                               cli_heightmap_format_names());
    return CLI_EXIT_OK;
}

int cli_parse_normalize(const char *command, const cli_option *opt, const char *arg)
{
    if (tf_normalize_from_name(arg, opt->value) != 0)
        return cli_usage_error(command, "invalid --normalize '%s': expected spec, minmax or none",
                               arg);
    return CLI_EXIT_OK;
}

const char *cli_heightmap_format_help(const char *output)
{
    return cli_textf("%s; by default from %s's extension (.png, .pgm, .r16/.raw, .f32, .pfm, "
                     ".asc), png16 when %s has none; any other extension is refused",
                     cli_heightmap_format_names(), output, output);
}

int cli_heightmap_output_format(const char *command, const char *option, const char *path,
                                bool format_given, tf_heightmap_format *format)
{
    if (format_given)
        return CLI_EXIT_OK; /* --format wins over the name */
    tf_error err;
    if (tf_heightmap_format_for_path(path, format, &err) != 0)
        return cli_usage_error(command, "%s %s with --format", option, err.message);
    return CLI_EXIT_OK;
}

int cli_check_float_options(const char *command, tf_heightmap_format format,
                            tf_normalize normalize, bool height_scale_given,
                            const char *integer_modes)
{
    if (tf_heightmap_format_is_float(format))
        return CLI_EXIT_OK;
    const char *name = tf_heightmap_format_name(format);
    if (normalize == TF_NORMALIZE_NONE)
        return cli_usage_error(command,
                               "--normalize none keeps raw heights, which only the float "
                               "formats f32, pfm and asc store; %s needs %s",
                               name, integer_modes);
    if (height_scale_given)
        return cli_usage_error(command,
                               "--height-scale applies to the float formats f32, pfm and asc; "
                               "%s spans its full integer range",
                               name);
    return CLI_EXIT_OK;
}

int cli_check_png_name(const char *command, const char *option, const char *path)
{
    const char *base = cli_base_name(path);
    const char *dot = strrchr(base, '.');
    if (!dot || dot == base || dot[1] == '\0')
        return CLI_EXIT_OK;
    if (strlen(dot) == 4 && tolower((unsigned char)dot[1]) == 'p' &&
        tolower((unsigned char)dot[2]) == 'n' && tolower((unsigned char)dot[3]) == 'g')
        return CLI_EXIT_OK;
    return cli_usage_error(command, "%s %s: pictures are written as PNG; name the file .png",
                           option, path);
}

/* ---- inputs */

const char *cli_base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

bool cli_looks_like_spec(const char *path)
{
    size_t len = strlen(path);
    if (len >= 5 && path[len - 5] == '.' && tolower((unsigned char)path[len - 4]) == 'j' &&
        tolower((unsigned char)path[len - 3]) == 's' &&
        tolower((unsigned char)path[len - 2]) == 'o' && tolower((unsigned char)path[len - 1]) == 'n')
        return true;
    FILE *f = fopen(path, "rb");
    if (!f)
        return false; /* the heightmap reader reports why */
    int c;
    size_t read = 0;
    do {
        c = getc(f);
        read++;
    } while (c != EOF && read < 4096 && (c == ' ' || c == '\t' || c == '\r' || c == '\n'));
    fclose(f);
    return c == '{';
}

tf_layer_map *cli_load_layer_map(const char *command, const char *path, cli_progress *progress,
                                 tf_error *err)
{
    tf_layer_map *map = tf_layer_map_load(path, err);
    /* A warning, not a refusal: a red-channel height (thesis 5.3) is the
     * documented rule, and layers painted in colour use it on purpose. */
    if (map && map->colour_ignored) {
        if (progress)
            cli_progress_finish(progress);
        cli_warn(command, "%s: a colour image; its heights are read from the red channel "
                          "alone, green and blue are ignored (docs/input.md)",
                 path);
    }
    return map;
}
