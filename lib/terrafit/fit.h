/* PLACEHOLDER: being written (issue 3). */
#ifndef TERRAFIT_FIT_H
#define TERRAFIT_FIT_H
#endif
