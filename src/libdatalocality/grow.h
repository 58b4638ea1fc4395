/*
 * grow.h - internal: room in an array that grows by doubling, the one
 * pattern of the library's and dl-sim's record readers and builders.
 */
#ifndef DL_GROW_H
#define DL_GROW_H

#include <stddef.h>
#include <stdlib.h>

#include "dl_error.h"

/*
 * Room for more elements of size bytes in *arr, of which used are taken
 * and *cap allocated: the capacity doubles (from first, when there is
 * none) until they fit.  The caller passes its typed pointer through a
 * void * and stores it back.  \return 0 or DL_ENOMEM (*arr, *cap
 * unchanged).
 */
static inline int dl__grow(void **arr, size_t used, size_t more, size_t *cap,
			   size_t size, size_t first)
{
	size_t c = *cap ? *cap : first;
	void *a;

	if (used + more <= *cap)
		return 0;
	while (c < used + more)
		c *= 2;
	if (!(a = realloc(*arr, c * size)))
		return DL_ENOMEM;
	*arr = a;
	*cap = c;
	return 0;
}

#endif /* DL_GROW_H */
