/* snafu evaluate: fuzz every kernel with the same budget and tabulate the findings. */
#ifndef SNAFU_EVALUATE_H
#define SNAFU_EVALUATE_H

int cmd_evaluate(int argc, char **argv);

#endif
