/* error.c - messages and names of the DL_E* codes, generated from one map. */
#include "dl_error.h"

const char *dl_strerror(int err)
{
	switch (err) {
	case DL_OK:
		return "success";
#define DL__ERR_MSG(name, val, msg) \
	case DL_##name:             \
		return msg;
		DL_ERRNO_MAP(DL__ERR_MSG)
#undef DL__ERR_MSG
	}
	return "unknown error";
}

const char *dl_err_name(int err)
{
	switch (err) {
	case DL_OK:
		return "DL_OK";
#define DL__ERR_NAME(name, val, msg) \
	case DL_##name:              \
		return "DL_" #name;
		DL_ERRNO_MAP(DL__ERR_NAME)
#undef DL__ERR_NAME
	}
	return "DL_UNKNOWN";
}
