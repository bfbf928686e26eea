/*
 * --json output: documents built as cJSON trees and printed in one layout
 * for every command, with numbers that read back as the same double and
 * each record on one line, so both JSON parsers and grep read it.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char *cli_exact_number(double v, char text[CLI_NUMBER_SIZE])
{
    snprintf(text, CLI_NUMBER_SIZE, "%.15g", v);
    if (strtod(text, NULL) != v)
        snprintf(text, CLI_NUMBER_SIZE, "%.17g", v);
    /* A locale's decimal comma is no JSON (nor XML number). */
    for (char *c = text; *c; c++)
        if (*c == ',')
            *c = '.';
    return text;
}

cJSON *cli_json_number(double v)
{
    char text[CLI_NUMBER_SIZE];
    return isfinite(v) ? cJSON_CreateRaw(cli_exact_number(v, text)) : cJSON_CreateNull();
}

bool cli_json_put(cJSON *object, const char *key, cJSON *item)
{
    if (object && item && cJSON_AddItemToObject(object, key, item))
        return true;
    cJSON_Delete(item);
    return false;
}

bool cli_json_put_number(cJSON *object, const char *key, double v)
{
    return cli_json_put(object, key, cli_json_number(v));
}

bool cli_json_put_string(cJSON *object, const char *key, const char *s)
{
    return cli_json_put(object, key, s ? cJSON_CreateString(s) : cJSON_CreateNull());
}

/* A scalar as cJSON spells it (strings escaped by cJSON), numbers that
 * were not made raw as cli_json_number spells them. */
static bool put_scalar(FILE *out, const cJSON *item)
{
    if (cJSON_IsRaw(item)) {
        fputs(item->valuestring, out);
        return true;
    }
    if (cJSON_IsNumber(item)) {
        cJSON *exact = cli_json_number(item->valuedouble);
        bool ok = exact != NULL;
        if (ok)
            fputs(cJSON_IsRaw(exact) ? exact->valuestring : "null", out);
        cJSON_Delete(exact);
        return ok;
    }
    char *text = cJSON_PrintUnformatted(item);
    if (!text)
        return false;
    fputs(text, out);
    cJSON_free(text);
    return true;
}

static bool put_key(FILE *out, const cJSON *item)
{
    cJSON *key = cJSON_CreateString(item->string);
    bool ok = key && put_scalar(out, key);
    cJSON_Delete(key);
    if (ok)
        fputs(": ", out);
    return ok;
}

/* `item` on one line: {"a": 1, "b": [2, 3]} */
static bool put_inline(FILE *out, const cJSON *item)
{
    bool object = cJSON_IsObject(item);
    if (!object && !cJSON_IsArray(item))
        return put_scalar(out, item);
    fputc(object ? '{' : '[', out);
    for (const cJSON *c = item->child; c; c = c->next) {
        if (c != item->child)
            fputs(", ", out);
        if ((object && !put_key(out, c)) || !put_inline(out, c))
            return false;
    }
    fputc(object ? '}' : ']', out);
    return true;
}

static bool is_expanded(const cJSON *item, const char *const *expanded)
{
    for (; expanded && *expanded; expanded++)
        if (item->string && strcmp(item->string, *expanded) == 0)
            return true;
    return false;
}

/* `item` with one member (element) a line at `depth`, each of those inline
 * unless expanded (root members only). */
static bool put_block(FILE *out, const cJSON *item, int depth, const char *const *expanded)
{
    bool object = cJSON_IsObject(item);
    if ((!object && !cJSON_IsArray(item)) || !item->child)
        return put_inline(out, item);
    fputs(object ? "{\n" : "[\n", out);
    for (const cJSON *c = item->child; c; c = c->next) {
        fprintf(out, "%*s", 2 * (depth + 1), "");
        if (object && !put_key(out, c))
            return false;
        bool ok = depth == 0 && is_expanded(c, expanded) ? put_block(out, c, depth + 1, NULL)
                                                          : put_inline(out, c);
        if (!ok)
            return false;
        fputs(c->next ? ",\n" : "\n", out);
    }
    fprintf(out, "%*s%c", 2 * depth, "", object ? '}' : ']');
    return true;
}

int cli_json_print(const char *command, cJSON *root, const char *const *expanded)
{
    /* Into memory first: a document that fails half way prints nothing. */
    char *text = NULL;
    size_t size = 0;
    FILE *buffer = open_memstream(&text, &size);
    bool ok = buffer && root && put_block(buffer, root, 0, expanded);
    if (buffer && fclose(buffer) != 0)
        ok = false;
    cJSON_Delete(root);
    if (ok) {
        fwrite(text, 1, size, stdout);
        putchar('\n');
    }
    free(text);
    return ok ? CLI_EXIT_OK : cli_fail(command, "out of memory writing JSON");
}
