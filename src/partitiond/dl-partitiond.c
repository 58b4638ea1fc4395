/*
 * dl-partitiond - the Zoltan/MPI half of the partitioner (dl_partition.h).
 *
 * libdatalocality starts this program and sends it hypergraphs over its
 * standard input; the parts go back over its standard output.  It serves
 * requests until EOF, so MPI_Init runs once per helper, and it stays out of
 * slurmctld's address space (see dl_partition.h for why).
 *
 * Run alone it is an MPI singleton; run under "mpirun -np N" rank 0 does
 * the pipe I/O and owns every vertex and net, the other ranks own none,
 * and Zoltan's PHG spreads the work over all ranks.
 *
 * Stdout carries the protocol only: at start-up the program keeps private
 * copies of fds 0 and 1 and points fd 1 at stderr, so anything MPI or
 * Zoltan prints lands on stderr, which the library forwards to its log.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>
#include <zoltan.h>

#include "dl_partition.h"

/*
 * Zoltan keeps one global random generator and declares its seed function
 * only in the private zz_rand.h.  PHG draws from it (matching, coarse
 * partitioning), so resetting it before each request is what makes the
 * same request give the same parts in a long-lived helper.
 */
extern void Zoltan_Srand(unsigned int seed, unsigned int *state);

/* Overridable only to demonstrate the default's damage (see the tests). */
#ifndef EDGE_SIZE_THRESHOLD
#define EDGE_SIZE_THRESHOLD "1.0"
#endif

/* One request as rank 0 holds it; the other ranks keep the header only. */
struct request {
	dl__proto_req_t hdr;
	double *vwgt;
	int32_t *fixed;
	int32_t *init;
	double *ncost;
	uint32_t *xpins;
	uint32_t *pins;
	/* Derived for Zoltan. */
	float *vw;
	float *ew;
	ZOLTAN_ID_TYPE *fixed_gid;
	int *fixed_part;
	uint32_t nfixed;
	int owner;		/* 1 on rank 0: this rank owns the objects */
};

static int in_fd = -1, out_fd = -1;
static pid_t parent;
/* $DL_PARTITIOND_DEBUG: Zoltan's DEBUG_LEVEL, for diagnosis only. */
static const char *debug;

/* ---- pipe I/O ---------------------------------------------------------- */

/* \return 1 all read, 0 clean EOF before the first byte, -1 error/short. */
static int _read_full(void *buf, size_t len)
{
	char *p = buf;
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(in_fd, p + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			return got ? -1 : 0;
		got += (size_t)n;
	}
	return 1;
}

static int _write_full(const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(out_fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int _respond(int32_t status, uint32_t nvtx, double seconds,
		    const int32_t *part)
{
	dl__proto_resp_t r = {
		.magic = DL__PROTO_RESP,
		.version = DL__PROTO_VERSION,
		.status = status,
		.nvtx = nvtx,
		.seconds = seconds,
	};

	if (_write_full(&r, sizeof(r)))
		return -1;
	if (status == DL__PROTO_OK && nvtx &&
	    _write_full(part, (size_t)nvtx * sizeof(*part)))
		return -1;
	return 0;
}

/* ---- Zoltan callbacks ---------------------------------------------------- */

static int _num_obj(void *data, int *ierr)
{
	struct request *r = data;

	*ierr = ZOLTAN_OK;
	return r->owner ? (int)r->hdr.nvtx : 0;
}

static void _obj_list(void *data, int ngid, int nlid, ZOLTAN_ID_PTR gids,
		      ZOLTAN_ID_PTR lids, int wdim, float *wgts, int *ierr)
{
	struct request *r = data;

	(void)ngid;
	(void)nlid;
	*ierr = ZOLTAN_OK;
	if (!r->owner)
		return;
	for (uint32_t v = 0; v < r->hdr.nvtx; v++) {
		gids[v] = v;
		lids[v] = v;
		if (wdim == 1)
			wgts[v] = r->vw[v];
	}
}

static void _hg_size_cs(void *data, int *nlists, int *npins, int *format,
			int *ierr)
{
	struct request *r = data;

	*ierr = ZOLTAN_OK;
	*format = ZOLTAN_COMPRESSED_EDGE;
	*nlists = r->owner ? (int)r->hdr.nnets : 0;
	*npins = r->owner ? (int)r->hdr.npins : 0;
}

static void _hg_cs(void *data, int ngid, int nlists, int npins, int format,
		   ZOLTAN_ID_PTR egid, int *eptr, ZOLTAN_ID_PTR pins, int *ierr)
{
	struct request *r = data;

	(void)ngid;
	*ierr = ZOLTAN_OK;
	if (format != ZOLTAN_COMPRESSED_EDGE || !r->owner ||
	    (uint32_t)nlists != r->hdr.nnets ||
	    (uint32_t)npins != r->hdr.npins) {
		*ierr = r->owner || nlists || npins ? ZOLTAN_FATAL : ZOLTAN_OK;
		return;
	}
	for (uint32_t n = 0; n < r->hdr.nnets; n++) {
		egid[n] = n;
		eptr[n] = (int)r->xpins[n];
	}
	for (uint32_t i = 0; i < r->hdr.npins; i++)
		pins[i] = r->pins[i];
}

static void _hg_size_ewts(void *data, int *nedges, int *ierr)
{
	struct request *r = data;

	*ierr = ZOLTAN_OK;
	*nedges = r->owner ? (int)r->hdr.nnets : 0;
}

static void _hg_ewts(void *data, int ngid, int nlid, int nedges, int wdim,
		     ZOLTAN_ID_PTR egid, ZOLTAN_ID_PTR elid, float *ewgt,
		     int *ierr)
{
	struct request *r = data;

	(void)ngid;
	(void)nlid;
	*ierr = ZOLTAN_OK;
	if (!r->owner)
		return;
	for (int n = 0; n < nedges && (uint32_t)n < r->hdr.nnets; n++) {
		egid[n] = (ZOLTAN_ID_TYPE)n;
		if (elid)
			elid[n] = (ZOLTAN_ID_TYPE)n;
		if (wdim == 1)
			ewgt[n] = r->ew[n];
	}
}

static int _num_fixed(void *data, int *ierr)
{
	struct request *r = data;

	*ierr = ZOLTAN_OK;
	return r->owner ? (int)r->nfixed : 0;
}

static void _fixed_list(void *data, int nfixed, int ngid,
			ZOLTAN_ID_PTR gids, int *parts, int *ierr)
{
	struct request *r = data;

	(void)ngid;
	*ierr = ZOLTAN_OK;
	for (int i = 0; i < nfixed && (uint32_t)i < r->nfixed; i++) {
		gids[i] = r->fixed_gid[i];
		parts[i] = r->fixed_part[i];
	}
}

/* Input parts, for REPARTITION and REFINE. */
static void _part_multi(void *data, int ngid, int nlid, int nobj,
			ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids, int *parts,
			int *ierr)
{
	struct request *r = data;

	(void)ngid;
	(void)nlid;
	(void)lids;
	*ierr = ZOLTAN_OK;
	for (int i = 0; i < nobj; i++) {
		if (gids[i] >= r->hdr.nvtx) {
			*ierr = ZOLTAN_FATAL;
			return;
		}
		parts[i] = r->init ? r->init[gids[i]] : 0;
	}
}

/*
 * Migration cost of a vertex for REPARTITION: moving a free vertex away
 * from its input part costs one unit (the helper cannot tell new jobs,
 * which the library placed greedily, from old ones); fixed vertices do not
 * move.  With the cut in MiB and the multiplier the library sends, this
 * only breaks near-ties in favour of the input plan.
 */
static void _obj_size_multi(void *data, int ngid, int nlid, int nids,
			    ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids, int *sizes,
			    int *ierr)
{
	struct request *r = data;

	(void)ngid;
	(void)nlid;
	(void)lids;
	*ierr = ZOLTAN_OK;
	for (int i = 0; i < nids; i++) {
		uint32_t v = gids[i];

		sizes[i] = v < r->hdr.nvtx && r->fixed[v] < 0 ? 1 : 0;
	}
}

/* ---- requests ------------------------------------------------------------ */

static void _request_free(struct request *r)
{
	free(r->vwgt);
	free(r->fixed);
	free(r->init);
	free(r->ncost);
	free(r->xpins);
	free(r->pins);
	free(r->vw);
	free(r->ew);
	free(r->fixed_gid);
	free(r->fixed_part);
	memset(r, 0, sizeof(*r));
}

static void *_xalloc(size_t n, size_t size)
{
	return malloc(n ? n * size : 1);
}

/*
 * Read the arrays of a request whose header is in r->hdr.
 * \return DL__PROTO_OK, DL__PROTO_EBADREQ (framing lost), DL__PROTO_ENOMEM
 * (framing lost too: the arrays were not consumed).
 */
static int _read_arrays(struct request *r)
{
	const dl__proto_req_t *h = &r->hdr;

	if (h->nvtx > INT_MAX || h->nnets >= INT_MAX || h->npins > INT_MAX ||
	    h->nparts == 0 || h->nparts > INT_MAX)
		return DL__PROTO_EBADREQ;
	r->vwgt = _xalloc(h->nvtx, sizeof(*r->vwgt));
	r->fixed = _xalloc(h->nvtx, sizeof(*r->fixed));
	r->init = h->flags & DL__PROTO_F_INIT ?
			  _xalloc(h->nvtx, sizeof(*r->init)) : NULL;
	r->ncost = _xalloc(h->nnets, sizeof(*r->ncost));
	r->xpins = _xalloc((size_t)h->nnets + 1, sizeof(*r->xpins));
	r->pins = _xalloc(h->npins, sizeof(*r->pins));
	r->vw = _xalloc(h->nvtx, sizeof(*r->vw));
	r->ew = _xalloc(h->nnets, sizeof(*r->ew));
	r->fixed_gid = _xalloc(h->nvtx, sizeof(*r->fixed_gid));
	r->fixed_part = _xalloc(h->nvtx, sizeof(*r->fixed_part));
	if (!r->vwgt || !r->fixed ||
	    ((h->flags & DL__PROTO_F_INIT) && !r->init) || !r->ncost ||
	    !r->xpins || !r->pins || !r->vw || !r->ew || !r->fixed_gid ||
	    !r->fixed_part)
		return DL__PROTO_ENOMEM;
	/* A zero-length read "succeeds" (returns 1): no special cases. */
	if (_read_full(r->vwgt, h->nvtx * sizeof(*r->vwgt)) != 1 ||
	    _read_full(r->fixed, h->nvtx * sizeof(*r->fixed)) != 1 ||
	    (r->init && _read_full(r->init, h->nvtx * sizeof(*r->init)) != 1) ||
	    _read_full(r->ncost, h->nnets * sizeof(*r->ncost)) != 1 ||
	    _read_full(r->xpins, ((size_t)h->nnets + 1) * sizeof(*r->xpins)) !=
		    1 ||
	    _read_full(r->pins, h->npins * sizeof(*r->pins)) != 1)
		return DL__PROTO_EBADREQ;
	return DL__PROTO_OK;
}

/*
 * Check the graph and derive Zoltan's float weights.  Zoltan would crash
 * on a pin out of range, so the helper does not trust the library here.
 * \return DL__PROTO_OK or DL__PROTO_EINVAL.
 */
static int _prepare(struct request *r)
{
	const dl__proto_req_t *h = &r->hdr;
	double vsum = 0;

	if (r->xpins[0] != 0 || r->xpins[h->nnets] != h->npins)
		return DL__PROTO_EINVAL;
	for (uint32_t n = 0; n < h->nnets; n++) {
		if (r->xpins[n] > r->xpins[n + 1])
			return DL__PROTO_EINVAL;
		if (!isfinite(r->ncost[n]) || r->ncost[n] < 0)
			return DL__PROTO_EINVAL;
		/*
		 * Costs are bytes, up to 1e10 and more; Zoltan takes floats.
		 * MiB keep every realistic size well inside float range while
		 * a 1-byte file still gets a nonzero weight.
		 */
		r->ew[n] = (float)(r->ncost[n] / 1048576.0);
	}
	for (uint32_t i = 0; i < h->npins; i++)
		if (r->pins[i] >= h->nvtx)
			return DL__PROTO_EINVAL;
	r->nfixed = 0;
	for (uint32_t v = 0; v < h->nvtx; v++) {
		if (!isfinite(r->vwgt[v]) || r->vwgt[v] < 0)
			return DL__PROTO_EINVAL;
		if (r->fixed[v] >= (int32_t)h->nparts || r->fixed[v] < -1)
			return DL__PROTO_EINVAL;
		if (r->init && (r->init[v] < 0 ||
				r->init[v] >= (int32_t)h->nparts))
			return DL__PROTO_EINVAL;
		if (r->fixed[v] >= 0) {
			r->fixed_gid[r->nfixed] = v;
			r->fixed_part[r->nfixed] = r->fixed[v];
			r->nfixed++;
		}
		r->vw[v] = (float)r->vwgt[v];
		vsum += r->vwgt[v];
	}
	/* All-zero weights would make every part "balanced" at 0 / 0. */
	if (vsum <= 0)
		for (uint32_t v = 0; v < h->nvtx; v++)
			r->vw[v] = 1.0f;
	return DL__PROTO_OK;
}

static int _set(struct Zoltan_Struct *zz, const char *name, const char *val)
{
	if (Zoltan_Set_Param(zz, name, val) != ZOLTAN_OK) {
		fprintf(stderr, "dl-partitiond: Zoltan rejected %s=%s\n", name,
			val);
		return -1;
	}
	return 0;
}

/*
 * $DL_PARTITIOND_PARAMS: "NAME=VALUE,NAME=VALUE" Zoltan parameters set
 * after ours, for tuning experiments (bench_partition) only.
 */
static int _set_extra(struct Zoltan_Struct *zz)
{
	const char *env = getenv("DL_PARTITIOND_PARAMS");
	char *copy, *save = NULL, *tok;
	int rc = 0;

	if (!env || !*env)
		return 0;
	copy = strdup(env);
	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');

		if (!eq) {
			rc = -1;
			break;
		}
		*eq = '\0';
		if (_set(zz, tok, eq + 1)) {
			rc = -1;
			break;
		}
	}
	free(copy);
	return rc;
}

static const char *const approach_name[] = {
	[DL__PROTO_PARTITION] = "PARTITION",
	[DL__PROTO_REPARTITION] = "REPARTITION",
	[DL__PROTO_REFINE] = "REFINE",
};

/*
 * One Zoltan structure per approach, made at its first request and kept
 * until exit: Zoltan_Create() duplicates the communicator and fills in
 * every parameter's default, which cost as much as PHG itself on the
 * small graphs of a short queue (a plan every event).  Zoltan keeps
 * nothing of a partition in it (no PHG_KEEP_TREE), and the random
 * generator is reset per request, so a request gives the same parts as
 * on a new structure.
 */
static struct Zoltan_Struct *zz_of[DL__PROTO_REFINE + 1];

/* The parameters that never change, on a new structure for approach a. */
static struct Zoltan_Struct *_zz_new(uint32_t a)
{
	struct Zoltan_Struct *zz = Zoltan_Create(MPI_COMM_WORLD);
	int ok = 1;

	if (!zz)
		return NULL;
	ok &= !_set(zz, "DEBUG_LEVEL", debug ? debug : "0");
	/* Zoltan's own quality report (on stderr, i.e. the host's log). */
	ok &= !_set(zz, "FINAL_OUTPUT", debug ? "1" : "0");
	ok &= !_set(zz, "LB_METHOD", "HYPERGRAPH");
	ok &= !_set(zz, "HYPERGRAPH_PACKAGE", "PHG");
	ok &= !_set(zz, "LB_APPROACH", approach_name[a]);
	ok &= !_set(zz, "PHG_CUT_OBJECTIVE", "CONNECTIVITY");
	ok &= !_set(zz, "NUM_GID_ENTRIES", "1");
	ok &= !_set(zz, "NUM_LID_ENTRIES", "1");
	ok &= !_set(zz, "OBJ_WEIGHT_DIM", "1");
	ok &= !_set(zz, "EDGE_WEIGHT_DIM", "1");
	/*
	 * The default 0.25 silently drops every net with more than a quarter
	 * of the vertices on it, i.e. every popular file: keep them all.
	 */
	ok &= !_set(zz, "PHG_EDGE_SIZE_THRESHOLD", EDGE_SIZE_THRESHOLD);
	/*
	 * REMAP (default on) renumbers the parts to overlap the input parts
	 * (the rank, here 0); that would move fixed vertices.
	 */
	ok &= !_set(zz, "REMAP", "0");
	ok &= !_set(zz, "RETURN_LISTS", "PARTITION ASSIGNMENTS");
	ok &= !_set(zz, "CHECK_HYPERGRAPH", "0");
	ok &= !_set_extra(zz);
	if (!ok)
		Zoltan_Destroy(&zz);
	return zz;
}

/* The structure for r's approach with r's parameters and callbacks, or
 * NULL. */
static struct Zoltan_Struct *_zz_for(struct request *r)
{
	const dl__proto_req_t *h = &r->hdr;
	struct Zoltan_Struct *zz = zz_of[h->approach];
	char buf[64];
	int ok = 1;

	if (!zz && !(zz = zz_of[h->approach] = _zz_new(h->approach)))
		return NULL;
	snprintf(buf, sizeof(buf), "%u", h->nparts);
	ok &= !_set(zz, "NUM_GLOBAL_PARTS", buf);
	snprintf(buf, sizeof(buf), "%.6f", h->imbalance);
	ok &= !_set(zz, "IMBALANCE_TOL", buf);
	if (h->approach == DL__PROTO_REPARTITION) {
		snprintf(buf, sizeof(buf), "%.6g", h->repart_multiplier);
		ok &= !_set(zz, "PHG_REPART_MULTIPLIER", buf);
	}
	Zoltan_Set_Num_Obj_Fn(zz, _num_obj, r);
	Zoltan_Set_Obj_List_Fn(zz, _obj_list, r);
	Zoltan_Set_HG_Size_CS_Fn(zz, _hg_size_cs, r);
	Zoltan_Set_HG_CS_Fn(zz, _hg_cs, r);
	Zoltan_Set_HG_Size_Edge_Wts_Fn(zz, _hg_size_ewts, r);
	Zoltan_Set_HG_Edge_Wts_Fn(zz, _hg_ewts, r);
	Zoltan_Set_Num_Fixed_Obj_Fn(zz, _num_fixed, r);
	Zoltan_Set_Fixed_Obj_List_Fn(zz, _fixed_list, r);
	if (h->approach != DL__PROTO_PARTITION) {
		Zoltan_Set_Part_Multi_Fn(zz, _part_multi, r);
		Zoltan_Set_Obj_Size_Multi_Fn(zz, _obj_size_multi, r);
	}
	return ok ? zz : NULL;
}

static void _zz_fini(void)
{
	for (size_t a = 0; a < sizeof(zz_of) / sizeof(zz_of[0]); a++)
		if (zz_of[a])
			Zoltan_Destroy(&zz_of[a]);
}

/*
 * Run Zoltan on every rank.  On rank 0, part[] gets the result.
 * \return DL__PROTO_OK or DL__PROTO_EZOLTAN (same value on every rank).
 */
static int _partition(struct request *r, int32_t *part, double *seconds)
{
	const dl__proto_req_t *h = &r->hdr;
	struct Zoltan_Struct *zz = _zz_for(r);
	int changes, ngid, nlid, nimp, nexp, rc, ok = zz != NULL, all_ok;
	ZOLTAN_ID_PTR imp_gid = NULL, imp_lid = NULL, exp_gid = NULL,
		      exp_lid = NULL;
	int *imp_proc = NULL, *imp_part = NULL, *exp_proc = NULL,
	    *exp_part = NULL;
	double t0;

	Zoltan_Srand(h->seed, NULL);
	t0 = MPI_Wtime();
	rc = ok ? Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp,
				      &imp_gid, &imp_lid, &imp_proc, &imp_part,
				      &nexp, &exp_gid, &exp_lid, &exp_proc,
				      &exp_part) :
		  ZOLTAN_FATAL;
	*seconds = MPI_Wtime() - t0;
	if (rc != ZOLTAN_OK && rc != ZOLTAN_WARN)
		ok = 0;
	if (ok && r->owner) {
		/* RETURN_LISTS=PARTITION ASSIGNMENTS lists every local
		 * object exactly once. */
		uint32_t seen = 0;

		for (uint32_t v = 0; v < h->nvtx; v++)
			part[v] = -1;
		if (nexp < 0 || (uint32_t)nexp != h->nvtx)
			ok = 0;
		for (int i = 0; ok && i < nexp; i++) {
			uint32_t v = exp_gid[i];

			if (v >= h->nvtx || part[v] != -1) {
				ok = 0;
				break;
			}
			part[v] = exp_part[i];
			seen++;
		}
		if (seen != h->nvtx)
			ok = 0;
	}
	Zoltan_LB_Free_Part(&imp_gid, &imp_lid, &imp_proc, &imp_part);
	Zoltan_LB_Free_Part(&exp_gid, &exp_lid, &exp_proc, &exp_part);
	MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	/* A structure that failed once is not trusted again; every rank
	 * drops its own, as they make the next one together. */
	if (!all_ok && zz_of[h->approach])
		Zoltan_Destroy(&zz_of[h->approach]);
	return all_ok ? DL__PROTO_OK : DL__PROTO_EZOLTAN;
}

/* What rank 0 tells the others before each request. */
enum { CMD_STOP = 0, CMD_RUN = 1, CMD_SKIP = 2 };

/*
 * Broadcast rank 0's command.  The other ranks wait for it as long as the
 * library has no request, and Open MPI's blocking collectives spin at
 * 100% CPU while they wait: poll a non-blocking broadcast instead, sleeping
 * up to 10 ms in between.
 */
static void _bcast_cmd(int *cmd, int rank)
{
	MPI_Request req;
	long ns = 50000;
	int done = 0;

	MPI_Ibcast(cmd, 1, MPI_INT, 0, MPI_COMM_WORLD, &req);
	if (rank == 0) {
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		return;
	}
	for (;;) {
		struct timespec ts = { 0, ns };

		MPI_Test(&req, &done, MPI_STATUS_IGNORE);
		if (done)
			return;
		/* Orphaned (mpirun died without killing us): nobody will
		 * ever send a command. */
		if (getppid() != parent)
			_exit(1);
		nanosleep(&ts, NULL);
		if (ns < 10000000)
			ns *= 2;
	}
}

/*
 * Rank 0: read one request and decide.  On CMD_RUN, r is ready; on
 * CMD_SKIP the answer was already sent; on CMD_STOP the helper exits.
 */
static int _serve_read(struct request *r)
{
	int rc = _read_full(&r->hdr, sizeof(r->hdr));

	if (rc == 0)
		return CMD_STOP;
	if (rc < 0 || r->hdr.magic != DL__PROTO_REQ ||
	    r->hdr.version != DL__PROTO_VERSION ||
	    r->hdr.approach > DL__PROTO_REFINE ||
	    (r->hdr.approach != DL__PROTO_PARTITION &&
	     !(r->hdr.flags & DL__PROTO_F_INIT)) ||
	    !(r->hdr.imbalance >= 1.0) || !isfinite(r->hdr.imbalance)) {
		fprintf(stderr, "dl-partitiond: malformed request header\n");
		_respond(DL__PROTO_EBADREQ, 0, 0, NULL);
		return CMD_STOP;
	}
	rc = _read_arrays(r);
	if (rc != DL__PROTO_OK) {
		/* The stream is out of step now: answer and quit. */
		fprintf(stderr, "dl-partitiond: %s reading a request\n",
			rc == DL__PROTO_ENOMEM ? "out of memory" :
						 "short read");
		_respond(rc, 0, 0, NULL);
		return CMD_STOP;
	}
	rc = _prepare(r);
	if (rc != DL__PROTO_OK) {
		fprintf(stderr, "dl-partitiond: invalid hypergraph\n");
		return _respond(rc, 0, 0, NULL) ? CMD_STOP : CMD_SKIP;
	}
	return CMD_RUN;
}

/* Keep the protocol fds private and route stray prints to stderr. */
static int _setup_fds(void)
{
	int devnull;

	in_fd = fcntl(0, F_DUPFD_CLOEXEC, 3);
	out_fd = fcntl(1, F_DUPFD_CLOEXEC, 3);
	if (in_fd < 0 || out_fd < 0)
		return -1;
	if (dup2(2, 1) < 0)
		return -1;
	devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (devnull >= 0) {
		dup2(devnull, 0);
		close(devnull);
	}
	return 0;
}

/* MPI and Zoltan up, and (rank 0) the greeting the library waits for.
 * \return 0, or 1 if this process cannot serve (said on stderr). */
static int _init(int *argc, char ***argv, int *rank)
{
	int nprocs = 1;
	float ver;

	if (_setup_fds()) {
		perror("dl-partitiond: fd setup");
		return 1;
	}
	if (MPI_Init(argc, argv) != MPI_SUCCESS) {
		fprintf(stderr, "dl-partitiond: MPI_Init failed\n");
		return 1;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	if (Zoltan_Initialize(*argc, *argv, &ver) != ZOLTAN_OK) {
		fprintf(stderr, "dl-partitiond: Zoltan_Initialize failed\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	if (*rank == 0) {
		dl__proto_hello_t hello = {
			.magic = DL__PROTO_HELLO,
			.version = DL__PROTO_VERSION,
			.nprocs = (uint32_t)nprocs,
		};

		if (_write_full(&hello, sizeof(hello))) {
			fprintf(stderr, "dl-partitiond: cannot greet\n");
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
	}
	return 0;
}

/*
 * One request, on every rank: rank 0 reads it and everyone learns what
 * to do; every rank enters Zoltan; rank 0 answers.
 * \return CMD_RUN to go on, CMD_STOP when the library is gone.
 */
static int _serve_one(int rank)
{
	struct request r = { 0 };
	int32_t *part = NULL;
	double seconds = 0;
	int status, cmd = CMD_RUN;

	if (rank == 0)
		cmd = _serve_read(&r);
	_bcast_cmd(&cmd, rank);
	if (cmd == CMD_STOP || cmd == CMD_SKIP) {
		_request_free(&r);
		return cmd == CMD_STOP ? CMD_STOP : CMD_RUN;
	}
	MPI_Bcast(&r.hdr, sizeof(r.hdr), MPI_BYTE, 0, MPI_COMM_WORLD);
	r.owner = rank == 0;
	if (r.owner) {
		part = _xalloc(r.hdr.nvtx, sizeof(*part));
		status = part ? DL__PROTO_OK : DL__PROTO_ENOMEM;
	} else {
		status = DL__PROTO_OK;
	}
	/* Every rank must enter Zoltan, so agree on memory first. */
	MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (status == DL__PROTO_OK)
		status = _partition(&r, part, &seconds);
	cmd = CMD_RUN;
	if (rank == 0 && _respond(status, r.hdr.nvtx, seconds, part)) {
		fprintf(stderr, "dl-partitiond: cannot answer\n");
		/* The library is gone: stop every rank. */
		cmd = CMD_STOP;
	}
	free(part);
	_request_free(&r);
	_bcast_cmd(&cmd, rank);
	return cmd;
}

int main(int argc, char **argv)
{
	int rank = 0;

	if (argc > 1 &&
	    (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: %s\n"
		       "Zoltan hypergraph partitioning helper of "
		       "libdatalocality; speaks a binary protocol on "
		       "stdin/stdout.\n"
		       "Started by the library; run as 'mpirun -np N %s' "
		       "for large graphs.\n",
		       argv[0], argv[0]);
		return 0;
	}
	debug = getenv("DL_PARTITIOND_DEBUG");
	parent = getppid();
	if (_init(&argc, &argv, &rank))
		return 1;
	while (_serve_one(rank) != CMD_STOP)
		;
	_zz_fini();
	MPI_Finalize();
	return 0;
}
