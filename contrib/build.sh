#!/usr/bin/env bash
# build.sh [BUILD_DIR [CONFIGURE_ARGS...]] - install what is missing
# (setup.sh), generate the build system, configure BUILD_DIR (default
# _build/main) against the prepared Slurm source with warnings as errors,
# and build.  Progress goes to stderr; the last line of stdout is BUILD_DIR.
# DL_SLURM_SOURCE: build against that configured Slurm tree instead (e.g.
# contrib/setup-slurm.sh 24.11.5 | tail -1); its libslurm is found in the
# prefix/ beside it (configure --with-slurm-prefix).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/_build/main}
[ $# -gt 0 ] && shift
slurm_src=$("$top/contrib/setup.sh" | tail -1)
slurm_src=${DL_SLURM_SOURCE:-$slurm_src}

cd "$top"
if [ ! -x configure ] || [ configure.ac -nt configure ] ||
   [ Makefile.am -nt Makefile.in ]; then
	echo "build: autoreconf" >&2
	autoreconf -fi >&2 2>/dev/null || autoreconf -fi >&2
fi
mkdir -p "$build"
cd "$build"
if [ ! -f Makefile ] || [ "$top/configure" -nt Makefile ] ||
   { [ -n "${DL_SLURM_SOURCE:-}" ] &&
     ! grep -qxF "SLURM_SRC = $slurm_src" Makefile; }; then
	echo "build: configure in $build" >&2
	"$top/configure" -q --with-slurm-source="$slurm_src" --enable-werror \
		"$@" >&2
fi
echo "build: make in $build" >&2
make -s -j"$(nproc)" >&2
echo "$build"
