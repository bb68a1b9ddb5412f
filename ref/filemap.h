/* The run's files (ref/filemap.c): what a program declares of each (its size, its bytes,
 * its open mode), and nothing else of the file system. */
#ifndef SNAFU_FILEMAP_H
#define SNAFU_FILEMAP_H

#include <stdbool.h>
#include <stdint.h>

#define NR_FILES       3  /* the files a run can declare: fd 1 to 3 */
#define FILE_MAX_PAGES 4  /* the largest file */
#define FILE_PATTERN   -1 /* fill: page i of file N holds 0x10 * N + i in every byte */

/* One open file, as the program that runs declares it; pages 0: the fd is not open. */
struct file_spec {
	uint8_t pages; /* i_size in pages, 1..FILE_MAX_PAGES */
	int16_t fill;  /* every byte of every page (0..255), or FILE_PATTERN */
	bool readonly; /* opened O_RDONLY (no FMODE_WRITE); else O_RDWR */
};

/* The byte a page of the file holds on disk. */
int file_spec_byte(const struct file_spec *f, int fd, unsigned long pgoff);

#endif
