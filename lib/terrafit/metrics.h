/* PLACEHOLDER: being written (issue 3). */
#ifndef TERRAFIT_METRICS_H
#define TERRAFIT_METRICS_H
#endif
