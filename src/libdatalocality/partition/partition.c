/*
 * partition.c - the partitioner of dl_partition.h: the client side of the
 * dl-partitiond helper (Zoltan PHG), and in process a greedy partitioner
 * and a k-way refinement that polish or replace the helper's answer.
 *
 * The helper runs as a child process in its own process group, with its
 * stdin, stdout and stderr on three pipes.  Every wait on it is a poll()
 * with a deadline, and while waiting the partitioner drains the helper's
 * stderr into the log so that a chatty helper cannot block on a full pipe.
 * Any failure ends with the helper killed (mpirun first with SIGTERM, so
 * that it takes its ranks along) and reaped, so neither a hung helper nor
 * a zombie outlives the request.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dl_error.h"
#include "dl_log.h"
#include "dl_partition.h"
#include "partition_coarse.h"
#include "partition_exact.h"
#include "partition_fill.h"

/* Where the build installs the helper; a bare name is searched in PATH. */
#ifndef DL_PARTITIOND_PATH
#define DL_PARTITIOND_PATH "dl-partitiond"
#endif
#ifndef DL_MPIRUN_PATH
#define DL_MPIRUN_PATH "mpirun"
#endif

#define DEFAULT_TIMEOUT_MS 30000u
/*
 * Helpers one call may start, and (without a deadline) requests it may
 * send to a new helper after one died: a helper can fail for reasons of
 * the moment, which must not decide a plan (issue 30, item 4).  Open MPI
 * 4's singletons raced over one session directory: 28 of 1,000 helpers
 * started 16 at a time on a 2-core host died in MPI_Init (none since each
 * has its own, _session_create()); fork limits and the OOM killer are
 * others.
 */
#define HELPER_TRIES 3
#define STOP_GRACE_MS 1000
#define MAX_SKIP 63u
/*
 * PHG_REPART_MULTIPLIER: REPARTITION minimises multiplier * cut (MiB) +
 * migration (one unit per moved job, see dl-partitiond.c), so moving a
 * job is worth about 10 KiB of transfers: the previous plan only wins
 * near-ties.
 */
#define REPART_MULTIPLIER 100.0

extern char **environ;

struct dl_partitioner {
	dl_partition_opts_t o;	/* o.helper is not used: see helper */
	char *helper;		/* resolved helper path; owned */
	pid_t pid;		/* -1: no helper */
	int to_fd;		/* helper's stdin */
	int from_fd;		/* helper's stdout */
	int err_fd;		/* helper's stderr; -1 after its EOF */
	char *sessdir;		/* the singleton helper's Open MPI session
				 * directory; owned, removed once the
				 * helper is reaped; NULL: none */
	int started;		/* a helper was started at least once */
	int restarts;
	unsigned failures;	/* consecutive helper failures */
	unsigned skip;		/* calls left to answer without the helper */
	size_t errlen;
	char errbuf[256];	/* partial line of the helper's stderr */
};

/* ---- graph checks and measures ----------------------------------------- */

static uint32_t _npins(const dl_hgraph_t *h)
{
	return h->nnets ? h->xpins[h->nnets] : 0;
}

/*
 * Check everything the partitioners rely on.  stamp[] is nvtx scratch for
 * the duplicate-pin check.
 * \return 0, DL_EINVAL, DL_ENOMEM.
 */
static int _check_graph(const dl_hgraph_t *h)
{
	uint32_t *stamp;

	if (!h || !h->nparts || h->nparts > INT32_MAX || h->nvtx > INT32_MAX ||
	    h->nnets >= INT32_MAX)
		return DL_EINVAL;
	if (h->nvtx && (!h->vwgt || !h->fixed))
		return DL_EINVAL;
	if (h->nnets && (!h->xpins || !h->ncost))
		return DL_EINVAL;
	if (h->nnets && h->xpins[0] != 0)
		return DL_EINVAL;
	if (_npins(h) && !h->pins)
		return DL_EINVAL;
	for (uint32_t v = 0; v < h->nvtx; v++) {
		if (!isfinite(h->vwgt[v]) || h->vwgt[v] < 0)
			return DL_EINVAL;
		if (h->fixed[v] < -1 || h->fixed[v] >= (int32_t)h->nparts)
			return DL_EINVAL;
	}
	for (uint32_t n = 0; n < h->nnets; n++)
		if (h->xpins[n] > h->xpins[n + 1] || !isfinite(h->ncost[n]) ||
		    h->ncost[n] < 0)
			return DL_EINVAL;
	if (_npins(h) > INT32_MAX)
		return DL_EINVAL;
	stamp = calloc(h->nvtx ? h->nvtx : 1, sizeof(*stamp));
	if (!stamp)
		return DL_ENOMEM;
	for (uint32_t n = 0; n < h->nnets; n++) {
		for (uint32_t i = h->xpins[n]; i < h->xpins[n + 1]; i++) {
			uint32_t v = h->pins[i];

			if (v >= h->nvtx || stamp[v] == n + 1) {
				free(stamp);
				return DL_EINVAL;
			}
			stamp[v] = n + 1;
		}
	}
	free(stamp);
	return 0;
}

/* Connectivity-1 cut; part[] must be valid.  \return the cut, or -1 on
 * ENOMEM. */
static double _cut(const dl_hgraph_t *h, const int32_t *part)
{
	uint32_t *stamp = calloc(h->nparts, sizeof(*stamp));
	double cut = 0;

	if (!stamp)
		return -1;
	for (uint32_t n = 0; n < h->nnets; n++) {
		uint32_t lambda = 0;

		for (uint32_t i = h->xpins[n]; i < h->xpins[n + 1]; i++) {
			uint32_t q = (uint32_t)part[h->pins[i]];

			if (stamp[q] != n + 1) {
				stamp[q] = n + 1;
				lambda++;
			}
		}
		if (lambda > 1)
			cut += h->ncost[n] * (lambda - 1);
	}
	free(stamp);
	return cut;
}

/* max part weight / mean part weight - 1; 0 for a weightless graph.
 * \return the imbalance (>= 0, also when rounding says otherwise), or -1
 * on ENOMEM. */
static double _imbalance(const dl_hgraph_t *h, const int32_t *part)
{
	double *pw = calloc(h->nparts, sizeof(*pw));
	double total = 0, max = 0, imb;

	if (!pw)
		return -1;
	for (uint32_t v = 0; v < h->nvtx; v++) {
		pw[part[v]] += h->vwgt[v];
		total += h->vwgt[v];
	}
	for (uint32_t q = 0; q < h->nparts; q++)
		if (pw[q] > max)
			max = pw[q];
	free(pw);
	/* The sum and the part sums round differently: an exact balance
	 * can come out as -1e-16. */
	imb = total > 0 ? max / (total / h->nparts) - 1 : 0;
	return imb > 0 ? imb : 0;
}

/* ---- bookkeeping shared by greedy and refinement ------------------------- */

/*
 * The vertex -> nets transpose of the graph, and per net the parts it
 * touches with the number of its pins in each.  A net touches at most
 * min(size, nparts) parts, so its slots fit in npins entries overall.
 */
struct topo {
	uint32_t *vx;		/* [nvtx + 1] offsets into vnets */
	uint32_t *vnets;	/* [npins] nets of each vertex */
	uint32_t *poff;		/* [nnets + 1] first slot of each net */
	uint32_t *pcnt;		/* [nnets] slots in use */
	uint32_t *slot_part;	/* part of each slot */
	uint32_t *slot_pins;	/* pins of the net in that part */
	double *pw;		/* [nparts] part weights */
	double *gain;		/* [nparts] scratch, all zero between uses */
	uint32_t *touched;	/* [nparts] scratch: parts with a gain entry */
	uint8_t *seen;		/* [nparts] scratch, all zero between uses */
	double cap;		/* largest allowed part weight */
};

static void _topo_free(struct topo *t)
{
	free(t->vx);
	free(t->vnets);
	free(t->poff);
	free(t->pcnt);
	free(t->slot_part);
	free(t->slot_pins);
	free(t->pw);
	free(t->gain);
	free(t->touched);
	free(t->seen);
}

/*
 * The tolerance actually applied to a graph: balance cannot be finer than
 * one job, so a part may always weigh imbalance x the heaviest free vertex.
 * Without this, a few big jobs on many nodes make every placement break the
 * cap, and the least-overloaded one wins over the one with no cut (a job
 * sent away from the idle node that caches its files).
 */
static double _effective_tol(const dl_hgraph_t *h, double imbalance)
{
	double total = 0, wmax = 0;

	for (uint32_t v = 0; v < h->nvtx; v++) {
		total += h->vwgt[v];
		if (h->fixed[v] < 0 && h->vwgt[v] > wmax)
			wmax = h->vwgt[v];
	}
	if (!(total > 0) || !h->nparts)
		return imbalance;
	return fmax(imbalance, imbalance * wmax / (total / h->nparts));
}

/* The largest part weight the tolerance allows, with slack so that exact
 * balance is not lost to rounding. */
static double _cap(const dl_hgraph_t *h, double imbalance)
{
	double total = 0;

	for (uint32_t v = 0; v < h->nvtx; v++)
		total += h->vwgt[v];
	return _effective_tol(h, imbalance) * total / h->nparts * (1 + 1e-12);
}

/* An empty placement: no vertex has a part yet.  \return 0 or DL_ENOMEM. */
static int _topo_init(struct topo *t, const dl_hgraph_t *h, double imbalance)
{
	const uint32_t nvtx = h->nvtx, npins = _npins(h), K = h->nparts;
	uint32_t *fill;

	memset(t, 0, sizeof(*t));
	t->vx = calloc((size_t)nvtx + 1, sizeof(*t->vx));
	t->vnets = malloc((npins ? npins : 1) * sizeof(*t->vnets));
	t->poff = malloc(((size_t)h->nnets + 1) * sizeof(*t->poff));
	t->pcnt = calloc(h->nnets ? h->nnets : 1, sizeof(*t->pcnt));
	t->pw = calloc(K, sizeof(*t->pw));
	t->gain = calloc(K, sizeof(*t->gain));
	t->touched = malloc(K * sizeof(*t->touched));
	t->seen = calloc(K, sizeof(*t->seen));
	fill = calloc(nvtx ? nvtx : 1, sizeof(*fill));
	if (!t->vx || !t->vnets || !t->poff || !t->pcnt || !t->pw ||
	    !t->gain || !t->touched || !t->seen || !fill)
		goto nomem;
	for (uint32_t i = 0; i < npins; i++)
		t->vx[h->pins[i] + 1]++;
	for (uint32_t v = 0; v < nvtx; v++)
		t->vx[v + 1] += t->vx[v];
	for (uint32_t n = 0; n < h->nnets; n++)
		for (uint32_t i = h->xpins[n]; i < h->xpins[n + 1]; i++) {
			uint32_t v = h->pins[i];

			t->vnets[t->vx[v] + fill[v]++] = n;
		}
	t->poff[0] = 0;
	for (uint32_t n = 0; n < h->nnets; n++) {
		uint32_t sz = h->xpins[n + 1] - h->xpins[n];

		t->poff[n + 1] = t->poff[n] + (sz < K ? sz : K);
	}
	t->slot_part = malloc((t->poff[h->nnets] ? t->poff[h->nnets] : 1) *
			      sizeof(*t->slot_part));
	t->slot_pins = malloc((t->poff[h->nnets] ? t->poff[h->nnets] : 1) *
			      sizeof(*t->slot_pins));
	if (!t->slot_part || !t->slot_pins)
		goto nomem;
	t->cap = _cap(h, imbalance);
	free(fill);
	return 0;
nomem:
	free(fill);
	_topo_free(t);
	return DL_ENOMEM;
}

/* The slot of part q in net n, or UINT32_MAX. */
static uint32_t _slot(const struct topo *t, uint32_t n, uint32_t q)
{
	for (uint32_t s = t->poff[n], e = s + t->pcnt[n]; s < e; s++)
		if (t->slot_part[s] == q)
			return s;
	return UINT32_MAX;
}

/* Put v (without a part so far) into part q. */
static void _place(struct topo *t, const dl_hgraph_t *h, uint32_t v,
		   uint32_t q)
{
	for (uint32_t j = t->vx[v]; j < t->vx[v + 1]; j++) {
		uint32_t n = t->vnets[j], s = _slot(t, n, q);

		if (s == UINT32_MAX) {
			s = t->poff[n] + t->pcnt[n]++;
			t->slot_part[s] = q;
			t->slot_pins[s] = 0;
		}
		t->slot_pins[s]++;
	}
	t->pw[q] += h->vwgt[v];
}

/* Take v out of part q. */
static void _unplace(struct topo *t, const dl_hgraph_t *h, uint32_t v,
		     uint32_t q)
{
	for (uint32_t j = t->vx[v]; j < t->vx[v + 1]; j++) {
		uint32_t n = t->vnets[j], s = _slot(t, n, q);
		uint32_t last = t->poff[n] + t->pcnt[n] - 1;

		if (--t->slot_pins[s] == 0) {
			t->slot_part[s] = t->slot_part[last];
			t->slot_pins[s] = t->slot_pins[last];
			t->pcnt[n]--;
		}
	}
	t->pw[q] -= h->vwgt[v];
}

/*
 * Sum into t->gain[q], for every part q != skip that v's nets touch, the
 * cost of those nets; list those parts in t->touched.  With skip = v's
 * own part, *leave gets the cost of the nets v is the last pin of in that
 * part, *wv the cost of all of v's nets.  \return the number of parts.
 */
static uint32_t _gains(struct topo *t, const dl_hgraph_t *h, uint32_t v,
		       uint32_t skip, double *leave, double *wv)
{
	uint32_t nt = 0;

	*leave = *wv = 0;
	for (uint32_t j = t->vx[v]; j < t->vx[v + 1]; j++) {
		uint32_t n = t->vnets[j];
		double c = h->ncost[n];

		*wv += c;
		for (uint32_t s = t->poff[n], e = s + t->pcnt[n]; s < e; s++) {
			uint32_t q = t->slot_part[s];

			if (q == skip) {
				if (t->slot_pins[s] == 1)
					*leave += c;
				continue;
			}
			if (!t->seen[q]) {
				t->seen[q] = 1;
				t->touched[nt++] = q;
			}
			t->gain[q] += c;
		}
	}
	return nt;
}

static void _gains_clear(struct topo *t, uint32_t nt)
{
	for (uint32_t i = 0; i < nt; i++) {
		t->gain[t->touched[i]] = 0;
		t->seen[t->touched[i]] = 0;
	}
}

/* ---- greedy ------------------------------------------------------------ */

struct greedy_order {
	double w;
	uint32_t v;
};

static int _order_cmp(const void *a, const void *b)
{
	const struct greedy_order *x = a, *y = b;

	if (x->w != y->w)
		return x->w > y->w ? -1 : 1;
	return x->v < y->v ? -1 : x->v > y->v;
}

/*
 * The greedy partitioner.  Vertices with init[v] in range (init may be
 * NULL) are pre-placed like fixed ones; fixed[] wins over init[].  Writes
 * every out[v].  \return 0 or DL_ENOMEM.
 */
static int _greedy(const dl_hgraph_t *h, double imbalance,
		   const int32_t *init, int32_t *out)
{
	const uint32_t nparts = h->nparts;
	struct greedy_order *order;
	struct topo t;
	uint32_t nfree = 0;

	if (_topo_init(&t, h, imbalance))
		return DL_ENOMEM;
	order = malloc((h->nvtx ? h->nvtx : 1) * sizeof(*order));
	if (!order) {
		_topo_free(&t);
		return DL_ENOMEM;
	}
	for (uint32_t v = 0; v < h->nvtx; v++) {
		int32_t q = h->fixed[v];

		if (q < 0 && init && init[v] >= 0 && init[v] < (int32_t)nparts)
			q = init[v];
		out[v] = q;
		if (q >= 0) {
			_place(&t, h, v, (uint32_t)q);
			continue;
		}
		order[nfree].w = h->vwgt[v];
		order[nfree].v = v;
		nfree++;
	}
	qsort(order, nfree, sizeof(*order), _order_cmp);
	for (uint32_t k = 0; k < nfree; k++) {
		uint32_t v = order[k].v, best = UINT32_MAX, light = 0, nt;
		double w = h->vwgt[v], leave, wv;

		double cap;

		/* gain[q]: cost of v's nets already present in part q, i.e.
		 * the cost that putting v in q does not add. */
		nt = _gains(&t, h, v, UINT32_MAX, &leave, &wv);
		for (uint32_t q = 1; q < nparts; q++)
			if (t.pw[q] < t.pw[light])
				light = q;
		/* If v fits nowhere, every part as light as the lightest is
		 * as good as it gets for balance: let the cut decide. */
		cap = fmax(t.cap, t.pw[light] + w);
		for (uint32_t q = 0; q < nparts; q++) {
			if (t.pw[q] + w > cap)
				continue;
			if (best == UINT32_MAX || t.gain[q] > t.gain[best] ||
			    (t.gain[q] == t.gain[best] && t.pw[q] < t.pw[best]))
				best = q;
		}
		_gains_clear(&t, nt);
		out[v] = (int32_t)best;
		_place(&t, h, v, best);
	}
	free(order);
	_topo_free(&t);
	return 0;
}

/* ---- k-way refinement -------------------------------------------------- */

#define REFINE_PASSES 4

/*
 * Improve a partition by single-vertex moves: each free vertex, in index
 * order, moves to the part that lowers the connectivity-1 cut most while
 * keeping that part under the balance cap (or, if the cap cannot be met,
 * no heavier than the part it leaves).  Stops after REFINE_PASSES
 * passes or when a pass gains less than 0.1% of the cut.  Never raises
 * the cut; deterministic.  Zoltan's recursive bisection leaves such moves
 * behind, mostly around nets that span many parts.
 * \return 0 or DL_ENOMEM (part unchanged).
 */
static int _refine(const dl_hgraph_t *h, double imbalance, int32_t *part)
{
	struct topo t;
	double cut;

	if (_topo_init(&t, h, imbalance))
		return DL_ENOMEM;
	cut = _cut(h, part);
	if (cut < 0) {
		_topo_free(&t);
		return DL_ENOMEM;
	}
	for (uint32_t v = 0; v < h->nvtx; v++)
		_place(&t, h, v, (uint32_t)part[v]);
	for (int pass = 0; pass < REFINE_PASSES; pass++) {
		double gained = 0;

		for (uint32_t v = 0; v < h->nvtx; v++) {
			uint32_t p = (uint32_t)part[v], best = UINT32_MAX, nt;
			double w = h->vwgt[v], leave, wv, bestd = 0, cap;

			if (h->fixed[v] >= 0)
				continue;
			nt = _gains(&t, h, v, p, &leave, &wv);
			/* Moving v from p to q changes the cut by the cost
			 * of its nets absent from q minus those it leaves. */
			/* A move may not make q heavier than the cap, or than
			 * p is now: the heaviest part never gets heavier. */
			cap = fmax(t.cap, t.pw[p]);
			for (uint32_t i = 0; i < nt; i++) {
				uint32_t q = t.touched[i];
				double d = (wv - t.gain[q]) - leave;

				if (t.pw[q] + w > cap)
					continue;
				if (d < bestd || (best != UINT32_MAX &&
						  d == bestd &&
						  t.pw[q] < t.pw[best])) {
					best = q;
					bestd = d;
				}
			}
			_gains_clear(&t, nt);
			/* Strictly better only, beyond rounding noise. */
			if (best == UINT32_MAX || !(bestd < -1e-9 * wv))
				continue;
			_unplace(&t, h, v, p);
			_place(&t, h, v, best);
			part[v] = (int32_t)best;
			gained -= bestd;
		}
		cut -= gained;
		if (gained <= 1e-3 * cut)
			break;
	}
	_topo_free(&t);
	return 0;
}

/*
 * Keep the partition of lower cut: alt replaces out if it cuts less and
 * its imbalance is within the tolerance or no worse than out's, or, with
 * balance_ties, if it cuts the same and is better balanced.
 * \return 1 if alt was taken, 0 if not, DL_ENOMEM.
 */
static int _pick(const dl_hgraph_t *h, double imbalance, int32_t *out,
		 const int32_t *alt, bool balance_ties)
{
	double co = _cut(h, out), ca = _cut(h, alt);
	double io = _imbalance(h, out), ia = _imbalance(h, alt);

	if (co < 0 || ca < 0 || io < 0 || ia < 0)
		return DL_ENOMEM;
	if ((ca < co && ia <= fmax(io, imbalance - 1) + 1e-9) ||
	    (balance_ties && ca == co && ia < io - 1e-9)) {
		memcpy(out, alt, h->nvtx * sizeof(*out));
		return 1;
	}
	return 0;
}

/*
 * h checked (_check_graph()) and a part per vertex for it into *out
 * (malloc'd, the caller's, at least one entry); RET 0 or DL_E*.
 */
static int _checked_out(const dl_hgraph_t *h, int32_t **out)
{
	int rc = _check_graph(h);

	if (rc)
		return rc;
	*out = malloc((h->nvtx ? h->nvtx : 1) * sizeof(**out));
	return *out ? 0 : DL_ENOMEM;
}

int dl_partition_greedy(const dl_hgraph_t *h, double imbalance,
			int32_t *part)
{
	int32_t *out;
	int rc;

	if (!h || !part || !(imbalance >= 1.0) || !isfinite(imbalance))
		return DL_EINVAL;
	rc = _checked_out(h, &out);
	if (rc)
		return rc;
	rc = _greedy(h, imbalance, NULL, out);
	if (!rc)
		memcpy(part, out, (size_t)h->nvtx * sizeof(*out));
	free(out);
	return rc;
}

/* ---- time, fds, signals ------------------------------------------------ */

static int64_t _now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static double _now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void _close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/*
 * A pipe end must not be 0, 1 or 2 (possible when the host closed its
 * stdio): dup2() onto itself in the child would keep FD_CLOEXEC.
 */
static int _above_stdio(int *fd)
{
	int nfd;

	if (*fd > 2)
		return 0;
	nfd = fcntl(*fd, F_DUPFD_CLOEXEC, 3);
	if (nfd < 0)
		return -1;
	close(*fd);
	*fd = nfd;
	return 0;
}

static int _pipe(int fds[2])
{
	if (pipe2(fds, O_CLOEXEC))
		return -1;
	if (_above_stdio(&fds[0]) || _above_stdio(&fds[1])) {
		_close(&fds[0]);
		_close(&fds[1]);
		return -1;
	}
	return 0;
}

static void _nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl >= 0)
		fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/*
 * Writes to a dead helper raise SIGPIPE, which would kill the host.  Block
 * it in this thread for the duration of the writes; if a write then fails
 * with EPIPE, take the SIGPIPE it left pending (unless one was pending
 * before) so that it is not delivered when the mask is restored.
 */
struct sigpipe_guard {
	sigset_t old;
	int was_pending;
};

static void _sigpipe_block(struct sigpipe_guard *g)
{
	sigset_t set, pending;

	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &set, &g->old);
	sigpending(&pending);
	g->was_pending = sigismember(&pending, SIGPIPE);
}

static void _sigpipe_unblock(struct sigpipe_guard *g, int got_epipe)
{
	if (got_epipe && !g->was_pending) {
		sigset_t set;
		struct timespec zero = { 0, 0 };

		sigemptyset(&set);
		sigaddset(&set, SIGPIPE);
		while (sigtimedwait(&set, NULL, &zero) < 0 && errno == EINTR)
			;
	}
	pthread_sigmask(SIG_SETMASK, &g->old, NULL);
}

/* ---- the helper's stderr ----------------------------------------------- */

static void _err_flush(dl_partitioner_t *p)
{
	if (!p->errlen)
		return;
	p->errbuf[p->errlen] = '\0';
	dl__log(DL_LOG_INFO, "dl-partitiond[%d]: %s", (int)p->pid, p->errbuf);
	p->errlen = 0;
}

/* Read what the helper wrote to stderr and log it line by line. */
static void _err_drain(dl_partitioner_t *p)
{
	char buf[1024];

	while (p->err_fd >= 0) {
		ssize_t n = read(p->err_fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			_err_flush(p);
			_close(&p->err_fd);
			return;
		}
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] == '\n') {
				_err_flush(p);
				continue;
			}
			p->errbuf[p->errlen++] = buf[i];
			if (p->errlen == sizeof(p->errbuf) - 1)
				_err_flush(p);
		}
	}
}

/* ---- the helper's Open MPI session directory --------------------------- */

#define TMPDIR_VAR "OMPI_MCA_orte_tmpdir_base="

/*
 * A singleton helper's own session directory.  Open MPI 4 names every
 * isolated singleton's session directory alike (<tmp>/ompi.<host>.<uid>
 * /jf.0), and two starting at once race creating it: MPI_Init fails
 * ("mkdir ... File exists") and the helper dies before its greeting.
 * Made under the host's orte_tmpdir_base, else $TMPDIR, else /tmp; on
 * failure the helper shares the default as before.
 */
static void _session_create(dl_partitioner_t *p)
{
	const char *base = getenv("OMPI_MCA_orte_tmpdir_base");
	char *dir;
	int n;

	if (!base || !*base)
		base = getenv("TMPDIR");
	if (!base || !*base)
		base = "/tmp";
	n = snprintf(NULL, 0, "%s/dl-partitiond.XXXXXX", base);
	dir = malloc((size_t)n + 1);
	if (!dir)
		return;
	snprintf(dir, (size_t)n + 1, "%s/dl-partitiond.XXXXXX", base);
	if (!mkdtemp(dir)) {
		dl__log(DL_LOG_INFO, "partitioner: mkdtemp in %s: %s", base,
			strerror(errno));
		free(dir);
		return;
	}
	p->sessdir = dir;
}

/* nftw()'s callback: best effort, what cannot go stays (in /tmp). */
static int _rm_entry(const char *path, const struct stat *sb, int type,
		     struct FTW *ftw)
{
	(void)sb;
	(void)type;
	(void)ftw;
	remove(path);
	return 0;
}

/* Remove the session directory of a helper that is gone: Open MPI empties
 * it on a clean exit, not when the helper was killed. */
static void _session_remove(dl_partitioner_t *p)
{
	if (!p->sessdir)
		return;
	if (rmdir(p->sessdir) && errno != ENOENT)
		nftw(p->sessdir, _rm_entry, 16,
		     FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
	free(p->sessdir);
	p->sessdir = NULL;
}

/* ---- helper process ---------------------------------------------------- */

/* Reap the helper if it already exited.  \return 1 if it is gone. */
static int _reap_nohang(dl_partitioner_t *p, int *status)
{
	pid_t r;

	do
		r = waitpid(p->pid, status, WNOHANG);
	while (r < 0 && errno == EINTR);
	/* ECHILD: the host reaped it for us (SIGCHLD ignored, waitpid(-1)). */
	if (r < 0 && errno == ECHILD) {
		*status = -1;
		return 1;
	}
	return r == p->pid;
}

static void _log_exit(const dl_partitioner_t *p, int status, int lvl)
{
	if (status == -1)
		dl__log(lvl, "partitioner: helper %d reaped elsewhere",
			(int)p->pid);
	else if (WIFEXITED(status))
		dl__log(lvl, "partitioner: helper %d exited with status %d",
			(int)p->pid, WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		dl__log(lvl, "partitioner: helper %d killed by signal %d",
			(int)p->pid, WTERMSIG(status));
}

/* Drop a helper that has been reaped already. */
static void _forget(dl_partitioner_t *p)
{
	_err_drain(p);
	_err_flush(p);
	_close(&p->to_fd);
	_close(&p->from_fd);
	_close(&p->err_fd);
	_session_remove(p);
	p->pid = -1;
}

/* Wait up to ms for the helper to exit, draining its stderr.
 * \return 1 if it exited (and was reaped). */
static int _wait_exit(dl_partitioner_t *p, int ms, int *status)
{
	int64_t deadline = _now_ms() + ms;
	int gone;

	while (!(gone = _reap_nohang(p, status)) && _now_ms() < deadline) {
		struct pollfd pfd = { .fd = p->err_fd, .events = POLLIN };

		/* Sleep 10 ms, or less when stderr has news. */
		if (poll(&pfd, p->err_fd >= 0, 10) > 0)
			_err_drain(p);
	}
	return gone;
}

/*
 * Stop the helper.  graceful: close its input and give it STOP_GRACE_MS
 * to exit on its own first.  Under mpirun, then SIGTERM mpirun, which
 * kills its ranks: they run in process groups of their own, out of reach
 * of the SIGKILL that finally goes to the helper's process group.
 */
static void _stop(dl_partitioner_t *p, int graceful)
{
	int status = 0, gone = 0;

	if (p->pid < 0)
		return;
	_close(&p->to_fd);
	if (graceful)
		gone = _wait_exit(p, STOP_GRACE_MS, &status);
	if (!gone && p->o.nprocs > 1) {
		kill(p->pid, SIGTERM);
		gone = _wait_exit(p, STOP_GRACE_MS, &status);
	}
	if (!gone) {
		kill(-p->pid, SIGKILL);
		kill(p->pid, SIGKILL);
		while (waitpid(p->pid, &status, 0) < 0) {
			if (errno != EINTR) {
				status = -1;
				break;
			}
		}
	}
	_log_exit(p, status, graceful ? DL_LOG_DEBUG : DL_LOG_INFO);
	_forget(p);
}

/* The deadline of a wait that starts now: none (INT64_MAX) with
 * DL_PARTITION_NO_TIMEOUT. */
static int64_t _deadline(const dl_partitioner_t *p)
{
	if (p->o.timeout_ms == DL_PARTITION_NO_TIMEOUT)
		return INT64_MAX;
	return _now_ms() + p->o.timeout_ms;
}

/*
 * Wait until fd is ready for events or the deadline passes, draining the
 * helper's stderr meanwhile.  Errors and hang-ups count as ready: the next
 * read or write reports them.
 * \return 0 or DL_ETIMEDOUT.
 */
static int _wait_fd(dl_partitioner_t *p, int fd, short events,
		    int64_t deadline)
{
	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = fd, .events = events },
			{ .fd = p->err_fd, .events = POLLIN },
		};
		int64_t left = deadline - _now_ms();
		int n;

		if (left <= 0)
			return DL_ETIMEDOUT;
		n = poll(pfd, p->err_fd >= 0 ? 2 : 1,
			 left > INT_MAX ? INT_MAX : (int)left);
		if (n < 0 && errno != EINTR)
			return DL_EIO;
		if (n <= 0)
			continue;
		if (p->err_fd >= 0 && pfd[1].revents)
			_err_drain(p);
		if (pfd[0].revents)
			return 0;
	}
}

/* \return 0, DL_ETIMEDOUT, DL_EIO (EPIPE: *epipe = 1). */
static int _write_all(dl_partitioner_t *p, const void *buf, size_t len,
		      int64_t deadline, int *epipe)
{
	const char *c = buf;

	while (len) {
		ssize_t n = write(p->to_fd, c, len);
		int rc;

		if (n > 0) {
			c += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			rc = _wait_fd(p, p->to_fd, POLLOUT, deadline);
			if (rc)
				return rc;
			continue;
		}
		if (n < 0 && errno == EPIPE)
			*epipe = 1;
		return DL_EIO;
	}
	return 0;
}

/* \return 0, DL_ETIMEDOUT, DL_EIO (error or EOF). */
static int _read_all(dl_partitioner_t *p, void *buf, size_t len,
		     int64_t deadline)
{
	char *c = buf;

	while (len) {
		ssize_t n = read(p->from_fd, c, len);
		int rc;

		if (n > 0) {
			c += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			rc = _wait_fd(p, p->from_fd, POLLIN, deadline);
			if (rc)
				return rc;
			continue;
		}
		return DL_EIO;
	}
	return 0;
}

/*
 * The environment of the helper: the host's, plus, for a singleton,
 * OMPI_MCA_ess_singleton_isolated=1 so that MPI_Init does not fork an
 * orted, and tmpdir (NULL or "OMPI_MCA_orte_tmpdir_base=<dir>") in place
 * of the host's setting.  \return a malloc'd array (strings borrowed),
 * NULL on ENOMEM.
 */
static char **_helper_env(int singleton, char *tmpdir)
{
	static char isolated[] = "OMPI_MCA_ess_singleton_isolated=1";
	const size_t plen = sizeof("OMPI_MCA_ess_singleton_isolated=") - 1;
	const size_t tlen = sizeof(TMPDIR_VAR) - 1;
	size_t n = 0, k = 0;
	char **env;

	while (environ && environ[n])
		n++;
	env = malloc((n + 3) * sizeof(*env));
	if (!env)
		return NULL;
	if (singleton)
		env[k++] = isolated;
	if (tmpdir)
		env[k++] = tmpdir;
	for (size_t i = 0; i < n; i++)
		if ((!singleton || strncmp(environ[i], isolated, plen)) &&
		    (!tmpdir || strncmp(environ[i], TMPDIR_VAR, tlen)))
			env[k++] = environ[i];
	env[k] = NULL;
	return env;
}

/* argv of the helper (under mpirun with nprocs > 1); np: its -np. */
static void _helper_argv(const dl_partitioner_t *p, char *argv[8],
			 char np[16])
{
	int k = 0;

	if (p->o.nprocs > 1) {
		argv[k++] = DL_MPIRUN_PATH;
		/* mpirun refuses root without it; slurmctld may be root. */
		if (geteuid() == 0)
			argv[k++] = "--allow-run-as-root";
		argv[k++] = "--oversubscribe";
		argv[k++] = "-np";
		snprintf(np, 16, "%u", p->o.nprocs);
		argv[k++] = np;
	}
	argv[k++] = p->helper;
	argv[k] = NULL;
}

/*
 * Spawn argv with in[0], out[1], err[1] as its stdin, stdout and stderr.
 * posix_spawn, not fork: the host may be a multi-threaded slurmctld, and
 * nothing but exec may run in a forked child there.  Every fd of ours is
 * O_CLOEXEC; closefrom also covers the host's other fds.  The child gets
 * its own process group (killed as a whole) and default signal state.
 * \return posix_spawnp()'s result.
 */
static int _spawn(pid_t *pid, char *const argv[], char *const env[],
		  const int in[2], const int out[2], const int err[2])
{
	static const int dflt_signals[] = { SIGPIPE, SIGINT,  SIGTERM,
					    SIGHUP,  SIGQUIT, SIGCHLD,
					    SIGUSR1, SIGUSR2, SIGALRM };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, dflt;
	size_t i;
	int rc;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_adddup2(&fa, err[1], 2);
#if defined(__GLIBC__) && \
	(__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
#endif
	posix_spawnattr_init(&attr);
	sigemptyset(&none);
	sigemptyset(&dflt);
	for (i = 0; i < sizeof(dflt_signals) / sizeof(dflt_signals[0]); i++)
		sigaddset(&dflt, dflt_signals[i]);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &dflt);
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK |
						POSIX_SPAWN_SETSIGDEF |
						POSIX_SPAWN_SETPGROUP);
	rc = posix_spawnp(pid, argv[0], &fa, &attr, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	return rc;
}

/* The new helper's greeting, within the timeout; on failure it is
 * stopped.  \return 0, DL_EIO (not our helper) or DL_ETIMEDOUT. */
static int _greeting(dl_partitioner_t *p)
{
	dl__proto_hello_t hello;
	pid_t pid = p->pid;
	int rc, greeted;

	rc = _read_all(p, &hello, sizeof(hello), _deadline(p));
	greeted = !rc;
	if (!rc && (hello.magic != DL__PROTO_HELLO ||
		    hello.version != DL__PROTO_VERSION)) {
		dl__log(DL_LOG_ERROR,
			"partitioner: %s is not a dl-partitiond of protocol %u",
			p->helper, DL__PROTO_VERSION);
		rc = DL_EIO;
	}
	if (rc) {
		if (rc == DL_ETIMEDOUT)
			dl__log(DL_LOG_ERROR,
				"partitioner: helper %d silent for %u ms",
				(int)pid, p->o.timeout_ms);
		else if (!greeted)
			dl__log(DL_LOG_INFO,
				"partitioner: helper %d ended before its "
				"greeting", (int)pid);
		_stop(p, 0);
	}
	return rc;
}

/*
 * The environment of the next helper, in *env (free()), and of a
 * singleton its session directory (p->sessdir, made here) in *tmpdir
 * (free(); NULL without one).  \return 0 or DL_ENOMEM.
 */
static int _start_env(dl_partitioner_t *p, char ***env, char **tmpdir)
{
	int singleton = p->o.nprocs <= 1;

	*tmpdir = NULL;
	if (singleton && !p->sessdir)
		_session_create(p);
	if (singleton && p->sessdir) {
		size_t n = sizeof(TMPDIR_VAR) + strlen(p->sessdir);

		*tmpdir = malloc(n);
		if (!*tmpdir)
			return DL_ENOMEM;
		snprintf(*tmpdir, n, "%s%s", TMPDIR_VAR, p->sessdir);
	}
	*env = _helper_env(singleton, *tmpdir);
	if (!*env) {
		free(*tmpdir);
		return DL_ENOMEM;
	}
	return 0;
}

/*
 * Start the helper and wait for its greeting.
 * \return 0, DL_EIO (cannot start, bad greeting), DL_ETIMEDOUT, DL_ENOMEM.
 */
static int _start(dl_partitioner_t *p)
{
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, err[2] = { -1, -1 };
	char np[16], *argv[8];
	char **env, *tmpdir;
	int rc = DL_EIO, spawn_rc;
	pid_t pid;

	_helper_argv(p, argv, np);
	if (_start_env(p, &env, &tmpdir))
		return DL_ENOMEM;
	if (_pipe(in) || _pipe(out) || _pipe(err)) {
		dl__log(DL_LOG_ERROR, "partitioner: pipe: %s", strerror(errno));
		goto fail;
	}
	spawn_rc = _spawn(&pid, argv, env, in, out, err);
	_close(&in[0]);
	_close(&out[1]);
	_close(&err[1]);
	if (spawn_rc) {
		dl__log(DL_LOG_ERROR, "partitioner: cannot start %s: %s",
			argv[0], strerror(spawn_rc));
		goto fail;
	}
	free(env);
	free(tmpdir);
	if (p->started)
		p->restarts++;
	p->started = 1;
	p->pid = pid;
	p->to_fd = in[1];
	p->from_fd = out[0];
	p->err_fd = err[0];
	_nonblock(p->to_fd);
	_nonblock(p->from_fd);
	_nonblock(p->err_fd);
	dl__log(DL_LOG_DEBUG, "partitioner: started %s as pid %d", p->helper,
		(int)pid);
	return _greeting(p);

fail:
	free(env);
	free(tmpdir);
	_session_remove(p);
	_close(&in[0]);
	_close(&in[1]);
	_close(&out[0]);
	_close(&out[1]);
	_close(&err[0]);
	_close(&err[1]);
	return rc;
}

/*
 * A running helper: one that died while idle is reaped (no harm done) and
 * another started, as is one when none runs.  A start that failed (not
 * one that timed out) is tried again, HELPER_TRIES in all.
 * \return 0 or the last _start()'s error.
 */
static int _ensure_helper(dl_partitioner_t *p)
{
	int status, rc = 0;

	if (p->pid >= 0 && _reap_nohang(p, &status)) {
		_log_exit(p, status, DL_LOG_INFO);
		_forget(p);
	}
	for (unsigned t = 1; p->pid < 0; t++) {
		rc = _start(p);
		if (rc != DL_EIO)
			break;
		if (t == HELPER_TRIES) {
			dl__log(DL_LOG_ERROR,
				"partitioner: no helper after %u starts", t);
			break;
		}
		dl__log(DL_LOG_INFO, "partitioner: helper start %u of %u "
			"failed, starting another", t, HELPER_TRIES);
	}
	return rc;
}

/*
 * The request for h (and init, a refine's starting parts, or NULL), every
 * array in one go under one deadline.  \return 0, DL_EIO (connection
 * lost) or DL_ETIMEDOUT.
 */
static int _send(dl_partitioner_t *p, const dl_hgraph_t *h,
		 const int32_t *init, uint32_t approach, int64_t deadline)
{
	static const uint32_t zero = 0;
	const uint32_t npins = _npins(h);
	dl__proto_req_t req = {
		.magic = DL__PROTO_REQ,
		.version = DL__PROTO_VERSION,
		.nvtx = h->nvtx,
		.nnets = h->nnets,
		.npins = npins,
		.nparts = h->nparts,
		.approach = approach,
		.seed = p->o.seed,
		.flags = init ? DL__PROTO_F_INIT : 0,
		.imbalance = _effective_tol(h, p->o.imbalance),
		.repart_multiplier = REPART_MULTIPLIER,
	};
	const struct {
		const void *buf;
		size_t len;
	} part[] = {
		{ &req, sizeof(req) },
		{ h->vwgt, h->nvtx * sizeof(*h->vwgt) },
		{ h->fixed, h->nvtx * sizeof(*h->fixed) },
		{ init, init ? h->nvtx * sizeof(*init) : 0 },
		{ h->ncost, h->nnets * sizeof(*h->ncost) },
		{ h->nnets ? (const void *)h->xpins : (const void *)&zero,
		  h->nnets ? ((size_t)h->nnets + 1) * sizeof(*h->xpins) :
			     sizeof(zero) },
		{ h->pins, (size_t)npins * sizeof(*h->pins) },
	};
	struct sigpipe_guard g;
	size_t i;
	int rc = 0, epipe = 0;

	_sigpipe_block(&g);
	for (i = 0; !rc && i < sizeof(part) / sizeof(part[0]); i++)
		if (part[i].len)
			rc = _write_all(p, part[i].buf, part[i].len, deadline,
					&epipe);
	_sigpipe_unblock(&g, epipe);
	return rc;
}

/*
 * The helper's answer into out, trusting nothing: a wrong part number
 * would index out of bounds.  \return 0; DL_EPARTITION (Zoltan failed,
 * the helper lives on); or DL_EIO, DL_EFORMAT, DL_ETIMEDOUT with *kill
 * set (the helper is to be stopped).
 */
static int _answer(dl_partitioner_t *p, const dl_hgraph_t *h, int32_t *out,
		   int64_t deadline, int *kill)
{
	dl__proto_resp_t resp;
	int rc;

	*kill = 1;
	if ((rc = _read_all(p, &resp, sizeof(resp), deadline))) {
		dl__log(DL_LOG_ERROR, "partitioner: helper %d: %s", (int)p->pid,
			rc == DL_ETIMEDOUT ? "no answer in time" :
					     "connection lost");
		return rc;
	}
	if (resp.magic != DL__PROTO_RESP || resp.version != DL__PROTO_VERSION) {
		dl__log(DL_LOG_ERROR, "partitioner: helper %d: garbled answer",
			(int)p->pid);
		return DL_EFORMAT;
	}
	if (resp.status != DL__PROTO_OK) {
		dl__log(DL_LOG_ERROR, "partitioner: helper %d: error %d",
			(int)p->pid, (int)resp.status);
		/* After EBADREQ/ENOMEM the helper exits: reap it. */
		*kill = resp.status == DL__PROTO_EBADREQ ||
			resp.status == DL__PROTO_ENOMEM;
		return *kill ? DL_EIO : DL_EPARTITION;
	}
	if (resp.nvtx != h->nvtx)
		return DL_EFORMAT;
	if ((rc = _read_all(p, out, h->nvtx * sizeof(*out), deadline)))
		return rc;
	for (uint32_t v = 0; v < h->nvtx; v++) {
		if (out[v] < 0 || out[v] >= (int32_t)h->nparts ||
		    (h->fixed[v] >= 0 && out[v] != h->fixed[v])) {
			dl__log(DL_LOG_ERROR,
				"partitioner: helper %d: vertex %u got part %d "
				"(nparts %u, fixed %d)",
				(int)p->pid, v, (int)out[v], h->nparts,
				(int)h->fixed[v]);
			return DL_EFORMAT;
		}
	}
	*kill = 0;
	dl__log(DL_LOG_DEBUG, "partitioner: %u vertices, %u parts: %.3f s in "
		"Zoltan", h->nvtx, h->nparts, resp.seconds);
	return 0;
}

/*
 * One request to a started helper; out[] gets validated parts.
 * \return 0; DL_EPARTITION (the helper reported an error and stays up);
 * DL_EIO, DL_ETIMEDOUT, DL_EFORMAT (the helper was stopped).
 */
static int _round_trip(dl_partitioner_t *p, const dl_hgraph_t *h,
		       const int32_t *init, uint32_t approach, int32_t *out)
{
	int64_t deadline;
	int rc, kill = 1;

	deadline = _deadline(p);
	rc = _send(p, h, init, approach, deadline);
	if (rc)
		dl__log(DL_LOG_ERROR, "partitioner: helper %d: %s", (int)p->pid,
			rc == DL_ETIMEDOUT ? "no answer in time" :
					     "connection lost");
	else
		rc = _answer(p, h, out, deadline, &kill);
	if (rc && kill)
		_stop(p, 0);
	return rc;
}

/*
 * One request to the helper, started if need be.  Without a deadline a
 * request whose helper was lost (DL_EIO: it died, or refused it) goes to
 * a new helper, HELPER_TRIES in all: the same request gets the same parts
 * from any helper (Zoltan's seed is reset per request), so only a helper
 * that fails every time leads to the fallback.  With a deadline the
 * caller's time is spent: no second request.
 * \return as _round_trip(), or _ensure_helper()'s error.
 */
static int _helper_run(dl_partitioner_t *p, const dl_hgraph_t *h,
		       const int32_t *init, uint32_t approach, int32_t *out)
{
	unsigned tries = p->o.timeout_ms == DL_PARTITION_NO_TIMEOUT ?
				 HELPER_TRIES :
				 1;
	int rc;

	for (unsigned t = 1;; t++) {
		if ((rc = _ensure_helper(p)))
			return rc;
		rc = _round_trip(p, h, init, approach, out);
		if (rc != DL_EIO || t == tries)
			return rc;
		dl__log(DL_LOG_INFO, "partitioner: request %u of %u lost "
			"with its helper, asking another", t, tries);
	}
}

/* ---- public API -------------------------------------------------------- */

void dl_partition_opts_default(dl_partition_opts_t *o)
{
	if (!o)
		return;
	memset(o, 0, sizeof(*o));
	o->helper = NULL;
	o->nprocs = 1;
	o->timeout_ms = DEFAULT_TIMEOUT_MS;
	o->imbalance = 1.1;
	o->seed = 1;
	o->refine = DL_REFINE_NONE;
	o->polish = 1;
	o->exact_free = 0;
	o->work_budget = DL_PARTITION_BUDGET;
}

dl_partitioner_t *dl_partitioner_create(const dl_partition_opts_t *o)
{
	dl_partition_opts_t def;
	dl_partitioner_t *p;
	const char *path;

	if (!o) {
		dl_partition_opts_default(&def);
		o = &def;
	}
	if (!(o->imbalance >= 1.0) || !isfinite(o->imbalance) ||
	    o->refine < DL_REFINE_NONE || o->refine > DL_REFINE_LIBRARY ||
	    !(o->work_budget >= 0))
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->o = *o;
	if (!p->o.timeout_ms)
		p->o.timeout_ms = DEFAULT_TIMEOUT_MS;
	path = o->helper;
	if (!path || !*path)
		path = getenv("DL_PARTITIOND");
	if (!path || !*path)
		path = DL_PARTITIOND_PATH;
	p->helper = strdup(path);
	if (!p->helper) {
		free(p);
		return NULL;
	}
	p->o.helper = NULL;
	p->pid = -1;
	p->to_fd = p->from_fd = p->err_fd = -1;
	return p;
}

void dl_partitioner_destroy(dl_partitioner_t *p)
{
	if (!p)
		return;
	_stop(p, 1);
	free(p->helper);
	free(p);
}

void dl_partitioner_set_exact(dl_partitioner_t *p, unsigned max_free)
{
	if (p)
		p->o.exact_free = max_free > 2 ? 2 : max_free;
}

void dl_partitioner_set_imbalance(dl_partitioner_t *p, double imbalance)
{
	if (p && imbalance >= 1.0 && isfinite(imbalance))
		p->o.imbalance = imbalance;
}

pid_t dl__partitioner_pid(const dl_partitioner_t *p)
{
	return p ? p->pid : -1;
}

/*
 * Refine the helper's parts in out[], and the greedy alternative (in
 * refine mode: init, the previous plan completed greedily); keep the lower
 * cut, preferring the helper's on a tie or when greedy's is less balanced
 * than both the tolerance and the helper's.  Zoltan's recursive bisection
 * copes badly with heavy nets that span many parts (popular files), where
 * greedy excels, so each wins on some inputs (see bench_partition.c).
 * \return 0 or DL_ENOMEM.
 */
static int _polish(const dl_hgraph_t *h, double imbalance,
		   const int32_t *init, int32_t *out, int *greedy_won)
{
	int32_t *alt = malloc(h->nvtx * sizeof(*alt));
	int rc;

	if (!alt)
		return DL_ENOMEM;
	if (init) {
		memcpy(alt, init, h->nvtx * sizeof(*alt));
		rc = 0;
	} else {
		rc = _greedy(h, imbalance, NULL, alt);
	}
	if (!rc)
		rc = _refine(h, imbalance, alt);
	if (!rc)
		rc = _refine(h, imbalance, out);
	if (rc) {
		free(alt);
		return rc;
	}
	/*
	 * At an equal cut, the better balance: a job with nothing to share
	 * must not queue behind a busy node while others are idle just
	 * because Zoltan put it there.
	 */
	rc = _pick(h, imbalance, out, alt, true);
	free(alt);
	if (rc < 0)
		return rc;
	if (rc)
		*greedy_won = 1;
	return 0;
}

/*
 * The library's own partition from scratch, without the helper: greedy's
 * and the breadth-first fill's (partition_fill.h), each refined, the lower
 * cut (greedy's on a tie, or when the fill's is less balanced than both
 * the tolerance and greedy's).  At 100,000 jobs on 1,024 nodes refined
 * greedy cut 2.8x Zoltan's, the refined fill 1.46x (doc/benchmarks.md).
 * \return 0 or DL_ENOMEM.
 */
static int _library(const dl_hgraph_t *h, double imbalance, int32_t *out)
{
	int32_t *alt = malloc((h->nvtx ? h->nvtx : 1) * sizeof(*alt));
	int rc;

	if (!alt)
		return DL_ENOMEM;
	rc = _greedy(h, imbalance, NULL, out);
	if (!rc)
		rc = _refine(h, imbalance, out);
	if (!rc)
		rc = dl__partition_fill(h, alt);
	if (!rc)
		rc = _refine(h, imbalance, alt);
	if (rc) {
		free(alt);
		return rc;
	}
	rc = _pick(h, imbalance, out, alt, false);
	free(alt);
	return rc < 0 ? rc : 0;
}

/* Whether a from-scratch partition of h is over the helper's work budget
 * (dl_partition_opts_t.work_budget). */
static int _over_budget(const dl_partitioner_t *p, const dl_hgraph_t *h)
{
	double levels = ceil(log2((double)h->nparts));

	if (!(p->o.work_budget > 0))
		return 0;
	return (double)_npins(h) * (levels > 1 ? levels : 1) >
	       p->o.work_budget;
}

/* Count a helper failure and back off: skip the next 2^(k-1) - 1 calls. */
static void _failed(dl_partitioner_t *p)
{
	unsigned shift = p->failures < 6 ? p->failures : 6;

	p->failures++;
	p->skip = (1u << shift) - 1;
	if (p->skip > MAX_SKIP)
		p->skip = MAX_SKIP;
	if (p->skip)
		dl__log(DL_LOG_INFO,
			"partitioner: helper failed %u times in a row; "
			"greedy for the next %u calls",
			p->failures, p->skip);
}

int dl_partitioner_start(dl_partitioner_t *p)
{
	int rc;

	if (!p)
		return DL_EINVAL;
	if (p->skip)
		return 0;
	rc = _ensure_helper(p);
	if (rc && rc != DL_ENOMEM)
		_failed(p);
	return rc;
}

/*
 * One request to the helper, unless backing off after failures; a
 * failure is counted.  \return 0 or the helper's error (out unchanged).
 */
static int _ask(dl_partitioner_t *p, const dl_hgraph_t *h,
		const int32_t *init, uint32_t approach, int32_t *out)
{
	int rc;

	if (p->skip) {
		p->skip--;
		return DL_EPARTITION;
	}
	rc = _helper_run(p, h, init, approach, out);
	if (rc == 0)
		p->failures = 0;
	else if (rc != DL_EPARTITION)
		_failed(p);
	return rc;
}

/*
 * The helper's answer (polished), or on its failure the greedy fallback.
 * \return 0 or DL_ENOMEM.
 */
static int _solve(dl_partitioner_t *p, const dl_hgraph_t *h,
		  const int32_t *init, uint32_t approach, int32_t *out,
		  int *fallback, int *greedy_won)
{
	int rc = _ask(p, h, init, approach, out);

	if (!rc)
		return p->o.polish ? _polish(h, p->o.imbalance, init, out,
					     greedy_won) :
				     0;
	/* The fallback ignores prev: a stale plan may be unbalanced, and
	 * greedy respects the balance. */
	*fallback = 1;
	if (!p->o.polish)
		return _greedy(h, p->o.imbalance, NULL, out);
	return _library(h, p->o.imbalance, out);
}

/*
 * A from-scratch graph over the work budget: its identical free vertices
 * merged (partition_coarse.h).  If that graph is within the budget, the
 * helper partitions it, its parts come back to h's vertices through the
 * map (same cut) and are polished on h (*coarse = 1); otherwise, or when
 * the helper fails (*fallback = 1), the library's partition answers
 * (*over = 1).  \return 0 or DL_ENOMEM.
 */
static int _solve_over(dl_partitioner_t *p, const dl_hgraph_t *h,
		       int32_t *out, int *fallback, int *greedy_won,
		       int *coarse, int *over)
{
	uint32_t *map = malloc((h->nvtx ? h->nvtx : 1) * sizeof(*map));
	int32_t *cpart = NULL;
	dl_hgraph_t c;
	int rc = DL_ENOMEM;

	if (!map || dl__coarsen(h, DL__COARSE_CHUNK_DIV, &c, map)) {
		free(map);
		return DL_ENOMEM;
	}
	if (!_over_budget(p, &c)) {
		cpart = malloc((c.nvtx ? c.nvtx : 1) * sizeof(*cpart));
		if (!cpart)
			goto out;
		rc = _ask(p, &c, NULL, DL__PROTO_PARTITION, cpart);
		if (!rc) {
			*coarse = 1;
			for (uint32_t v = 0; v < h->nvtx; v++)
				out[v] = cpart[map[v]];
			rc = p->o.polish ? _polish(h, p->o.imbalance, NULL,
						   out, greedy_won) :
					   0;
			goto out;
		}
		*fallback = 1;
	}
	*over = 1;
	rc = _library(h, p->o.imbalance, out);
out:
	dl__coarse_free(&c);
	free(cpart);
	free(map);
	return rc;
}

/* Whether some vertex of h is free. */
static int _any_free(const dl_hgraph_t *h)
{
	for (uint32_t v = 0; v < h->nvtx; v++)
		if (h->fixed[v] < 0)
			return 1;
	return 0;
}

/* How a run decided: the flags of dl_partition_stats_t. */
typedef struct run_flags {
	int fallback, greedy_won, exact, over, coarse;
} run_flags_t;

/*
 * Partition h's free vertices into out: refined from prev (its parts
 * stay, new vertices go greedily), or from scratch (within budget, or
 * merged / the library's best when over it).  RET 0 or DL_E*.
 */
static int _partition_free(dl_partitioner_t *p, const dl_hgraph_t *h,
			   const int32_t *prev, int32_t *out, run_flags_t *f)
{
	uint32_t approach = DL__PROTO_PARTITION;
	int32_t *init = NULL;   /* owned here: the refinement's start */
	int rc;

	if (prev && p->o.refine != DL_REFINE_NONE) {
		init = malloc(h->nvtx * sizeof(*init));
		if (!init)
			return DL_ENOMEM;
		rc = _greedy(h, p->o.imbalance, prev, init);
		if (rc)
			goto out;
		approach = p->o.refine == DL_REFINE_REPART ?
				   DL__PROTO_REPARTITION :
				   DL__PROTO_REFINE;
	}
	if (init && p->o.refine == DL_REFINE_LIBRARY) {
		memcpy(out, init, h->nvtx * sizeof(*out));
		rc = _refine(h, p->o.imbalance, out);
	} else if (!init && _over_budget(p, h)) {
		/* Too big to partition from scratch within budget: its
		 * identical jobs merged, or the library's best, never a
		 * timeout's greedy. */
		rc = _solve_over(p, h, out, &f->fallback, &f->greedy_won,
				 &f->coarse, &f->over);
	} else {
		rc = _solve(p, h, init, approach, out, &f->fallback,
			    &f->greedy_won);
	}
out:
	free(init);
	return rc;
}

/* Decide every vertex's part of h into out; RET 0 or DL_E*. */
static int _decide(dl_partitioner_t *p, const dl_hgraph_t *h,
		   const int32_t *prev, int32_t *out, run_flags_t *f)
{
	if (h->nparts == 1) {
		/* Nothing to decide; fixed parts are all 0 too. */
		memset(out, 0, (size_t)h->nvtx * sizeof(*out));
		return 0;
	}
	if (!_any_free(h)) {
		/* Nothing to decide either: no helper round trip (42% of the
		 * plans of bench_sim's 5,000-job trace). */
		memcpy(out, h->fixed, (size_t)h->nvtx * sizeof(*out));
		return 0;
	}
	if (!prev && p->o.exact_free &&
	    (f->exact = dl__exact_small(h, _cap(h, p->o.imbalance),
					p->o.exact_free, out))) {
		/*
		 * One or two vertices to place, every other one fixed: tried
		 * in every part (partition_exact.h), under the tolerance the
		 * helper would get.  Most of the helper's requests on
		 * bench_sim's trace.
		 */
		return f->exact < 0 ? f->exact : 0;
	}
	return h->nvtx ? _partition_free(p, h, prev, out, f) : 0;
}

/* The stats of a run that decided out from h; RET 0 or DL_ENOMEM. */
static int _run_stats(const dl_partitioner_t *p, const dl_hgraph_t *h,
		      const int32_t *out, const run_flags_t *f, double t0,
		      dl_partition_stats_t *stats)
{
	dl_partition_stats_t s = {
		.used_fallback = f->fallback,
		.exact = f->exact,
		.greedy_won = f->greedy_won,
		.helper_restarts = p->restarts,
		.over_budget = f->over,
		.coarse = f->coarse,
	};

	s.cut = _cut(h, out);
	s.imbalance = _imbalance(h, out);
	if (s.cut < 0 || s.imbalance < 0)
		return DL_ENOMEM;
	s.seconds = _now_s() - t0;
	*stats = s;
	return 0;
}

int dl_partitioner_run(dl_partitioner_t *p, const dl_hgraph_t *h,
		       const int32_t *prev, int32_t *part,
		       dl_partition_stats_t *stats)
{
	double t0 = _now_s();
	run_flags_t f = { 0 };
	int32_t *out;           /* owned here, copied to part when done */
	int rc;

	if (!p || !h || !part)
		return DL_EINVAL;
	rc = _checked_out(h, &out);
	if (rc)
		return rc;
	rc = _decide(p, h, prev, out, &f);
	if (!rc && stats)
		rc = _run_stats(p, h, out, &f, t0, stats);
	if (!rc)
		memcpy(part, out, (size_t)h->nvtx * sizeof(*out));
	free(out);
	return rc;
}
