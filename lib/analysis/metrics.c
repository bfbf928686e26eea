/* PLACEHOLDER: being written (issue 3). */
typedef int tf_placeholder_metrics;
