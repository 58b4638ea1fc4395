#!/usr/bin/env bash
# build.sh [BUILD_DIR [CONFIGURE_ARGS...]] - install what is missing
# (setup.sh), generate the build system, configure BUILD_DIR (default
# _build/main) against the prepared Slurm source with warnings as errors,
# and build.  Progress goes to stderr; the last line of stdout is BUILD_DIR.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/_build/main}
[ $# -gt 0 ] && shift
slurm_src=$("$top/contrib/setup.sh" | tail -1)

cd "$top"
if [ ! -x configure ] || [ configure.ac -nt configure ] ||
   [ Makefile.am -nt Makefile.in ]; then
	echo "build: autoreconf" >&2
	autoreconf -fi >&2 2>/dev/null || autoreconf -fi >&2
fi
mkdir -p "$build"
cd "$build"
if [ ! -f Makefile ] || [ "$top/configure" -nt Makefile ]; then
	echo "build: configure in $build" >&2
	"$top/configure" -q --with-slurm-source="$slurm_src" --enable-werror \
		"$@" >&2
fi
echo "build: make in $build" >&2
make -s -j"$(nproc)" >&2
echo "$build"
