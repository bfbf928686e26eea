/*
 * A one-line progress bar on stderr for long-running commands. It is for
 * a person watching a terminal, so it stays silent when stderr is a file or
 * a pipe (logs get no \r noise) and redraws at most ten times a second.
 */
#define _POSIX_C_SOURCE 200809L /* isatty */

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "util/util.h" /* tf_clock_seconds */

#define BAR_CELLS 40
#define REDRAW_INTERVAL_SECONDS 0.1

/* Draw `line` (after a \r) and blank whatever is left of a longer one. */
static void draw_line(cli_progress *progress, const char *line)
{
    size_t width = strlen(line);
    int pad = progress->width_drawn > width ? (int)(progress->width_drawn - width) : 0;
    fprintf(stderr, "\r%s%*s", line, pad, "");
    fflush(stderr);
    progress->width_drawn = width;
}

void cli_progress_start(cli_progress *progress, const char *label, bool quiet)
{
    progress->label = label;
    progress->enabled = !quiet && isatty(STDERR_FILENO);
    progress->percent_drawn = -1;
    progress->width_drawn = 0;
    progress->last_draw_seconds = 0.0;
}

void cli_progress_update(cli_progress *progress, size_t done, size_t total)
{
    if (!progress->enabled || total == 0)
        return;
    if (done > total)
        done = total;
    int percent = (int)((double)done * 100.0 / (double)total);
    if (percent == progress->percent_drawn)
        return;
    double now = tf_clock_seconds();
    /* Always draw the first frame so something shows at once; after that
     * only when enough time has passed, so a fast render costs no I/O. */
    if (progress->percent_drawn >= 0 &&
        now - progress->last_draw_seconds < REDRAW_INTERVAL_SECONDS && percent < 100)
        return;

    char bar[BAR_CELLS + 1];
    size_t filled = (size_t)((double)done * BAR_CELLS / (double)total);
    for (size_t i = 0; i < BAR_CELLS; i++)
        bar[i] = i < filled ? '#' : '.';
    bar[BAR_CELLS] = '\0';
    char line[BAR_CELLS + 64];
    snprintf(line, sizeof line, "%s  [%s] %3d%%", progress->label, bar, percent);
    draw_line(progress, line);
    progress->percent_drawn = percent;
    progress->last_draw_seconds = now;
}

void cli_progress_note(cli_progress *progress, const char *verb, const char *path)
{
    if (!progress->enabled)
        return;
    /* The last path component, cut short: a line that wraps cannot be
     * erased with \r. */
    const char *slash = strrchr(path, '/');
    char line[96];
    snprintf(line, sizeof line, "%s  %s %.48s", progress->label, verb, slash ? slash + 1 : path);
    draw_line(progress, line);
    progress->percent_drawn = -1; /* a later update redraws the bar */
}

void cli_progress_finish(cli_progress *progress)
{
    if (!progress->enabled || progress->width_drawn == 0)
        return;
    /* Blank the line rather than leave a stale bar under later output. */
    fprintf(stderr, "\r%*s\r", (int)progress->width_drawn, "");
    fflush(stderr);
    progress->percent_drawn = -1;
    progress->width_drawn = 0;
}

void cli_progress_callback(void *user, size_t done, size_t total)
{
    cli_progress_update(user, done, total);
}
