#!/usr/bin/env bash
# setup-slurm.sh [-p] [VERSION] - build a Slurm release other than the
# installed one (default 24.11.5, Debian 13's) from Debian's upstream
# tarball into its own prefix, for the plugins to be built against and the
# cluster harness to run (DL_SLURM_PREFIX).  Binary packages of a newer
# Debian do not install on Debian 12, so the daemons are built here.
#
# Layout under $DL_DEPS_DIR/slurm-VERSION (default DL_DEPS_DIR
# /var/cache/slurm-datalocality):
#   slurm-VERSION/   the unpacked source, configured and built in place
#                    (config.h and the headers --with-slurm-source= wants)
#   prefix/          make install: sbin/slurmctld, bin/sbatch, lib/slurm/...
#   build.log, build-seconds
# Cached: once prefix/.dl-built exists a run only checks (seconds).
#
# Prints, as its last line, the configured source tree, or with -p the
# prefix.  A cold build prints how long it took on stderr (and the time
# is kept in build-seconds so that a cached run can say it too).
# Needs root only the first time (apt-get for the deb-src line and the
# build dependencies).  Exits non-zero if anything fails: a missing Slurm
# must show as a failure, never as a skipped test.
set -euo pipefail

print_prefix=0
if [ "${1:-}" = -p ]; then print_prefix=1; shift; fi
VERSION=${1:-24.11.5}
DEPS_DIR=${DL_DEPS_DIR:-/var/cache/slurm-datalocality}
# Debian release whose source index carries VERSION; only a deb-src line
# is added, so no binary package of that release can be installed.
SUITE=${DL_SLURM_SUITE:-trixie}
dir="$DEPS_DIR/slurm-$VERSION"
tree="$dir/slurm-$VERSION"
prefix="$dir/prefix"

log() { echo "setup-slurm: $*" >&2; }
die() { log "$*"; exit 1; }
result() {
	if [ "$print_prefix" = 1 ]; then echo "$prefix"; else echo "$tree"; fi
}

if [ -f "$prefix/.dl-built" ] && [ -x "$prefix/sbin/slurmctld" ] &&
   [ -f "$tree/config.h" ]; then
	log "Slurm $VERSION cached in $prefix (cold build took $(cat "$dir/build-seconds" 2>/dev/null || echo '?') s)"
	result
	exit 0
fi
[ "$(id -u)" = 0 ] || die "must run as root the first time (apt-get)"

# What configure looks for beyond setup.sh's packages: MUNGE and the
# headers every Slurm build needs.  Optional features stay off (below).
PKGS=(build-essential libmunge-dev munge libpam0g-dev dpkg-dev)
missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	log "installing ${missing[*]}"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "${missing[@]}" >&2
fi

mkdir -p "$dir"
tarball="$dir/slurm-wlm_$VERSION.orig.tar.gz"
if [ ! -s "$tarball" ]; then
	srcver=$(apt-cache showsrc slurm-wlm 2>/dev/null |
		sed -n "s/^Version: \($VERSION-.*\)/\1/p" | head -1)
	if [ -z "$srcver" ]; then
		list=/etc/apt/sources.list.d/dl-$SUITE-src.list
		mirror=$(sed -n 's/^URIs: *\(http[^ ]*\/debian\)$/\1/p' \
			/etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
		mirror=${mirror:-http://deb.debian.org/debian}
		log "adding $list (deb-src $mirror $SUITE main)"
		echo "deb-src $mirror $SUITE main" >"$list"
		apt-get update -qq
		srcver=$(apt-cache showsrc slurm-wlm |
			sed -n "s/^Version: \($VERSION-.*\)/\1/p" | head -1)
		[ -n "$srcver" ] || die "no slurm-wlm $VERSION in any deb-src index"
	fi
	log "fetching slurm-wlm_$VERSION.orig.tar.gz (source $srcver)"
	# The Debian revision's .dsc and debian.tar may not be served; only
	# the upstream tarball is needed, so their failure is not fatal.
	(cd "$dir" && apt-get source --download-only -qq "slurm-wlm=$srcver" \
		>/dev/null 2>&1) || true
	[ -s "$tarball" ] || die "could not download $tarball"
fi

rm -rf "$tree" "$prefix"
log "unpacking $tarball"
# The tarball's top directory is named after SchedMD's git tag
# (slurm-slurm-24-11-5-1), not slurm-VERSION: unpack aside and rename.
rm -rf "$dir/unpack"
mkdir "$dir/unpack"
tar -C "$dir/unpack" -xzf "$tarball"
top=$(find "$dir/unpack" -mindepth 1 -maxdepth 1 -type d)
[ -n "$top" ] && [ -x "$top/configure" ] ||
	die "no single source directory with configure in $tarball"
mv "$top" "$tree"
rmdir "$dir/unpack"

start=$(date +%s)
# --enable-multiple-slurmd: the harness runs N slurmd on one host.
# MUNGE: auth/munge and cred/munge.  Everything else optional is off to
# keep the build short (no GUI, PMIx, UCX, GPUs, HDF5, RRD, slurmrestd,
# Lua, ...); -O1 without debug info to shorten compiling (the daemons'
# speed does not matter to the tests; the saving was not measured).
log "configuring Slurm $VERSION into $prefix"
(cd "$tree" && ./configure --prefix="$prefix" --sysconfdir="$prefix/etc" \
	--with-munge --enable-multiple-slurmd --disable-debug \
	--without-pmix --without-ucx --without-hdf5 --without-rrdtool \
	--without-nvml --without-rsmi --without-oneapi --without-jwt \
	--without-yaml --without-lua --without-http-parser --without-json \
	--without-libcurl --without-dbus --without-lz4 --without-freeipmi \
	--without-netloc --without-hwloc --without-selinux \
	--disable-slurmrestd --disable-x11 --disable-sview --disable-glibtest \
	--disable-gtktest \
	CFLAGS="-O1 -g0" SUCMD=/bin/su SLEEP_CMD=/bin/sleep \
	>"$dir/build.log" 2>&1) || {
	tail -30 "$dir/build.log" >&2
	die "configure failed (log: $dir/build.log)"
}
jobs=${DL_SLURM_JOBS:-$(nproc)}
log "building Slurm $VERSION with make -j$jobs (24.11.5: 626 s on 2 loaded cores)"
(cd "$tree" && make -j"$jobs" >>"$dir/build.log" 2>&1 &&
	make install >>"$dir/build.log" 2>&1) || {
	tail -40 "$dir/build.log" >&2
	die "build failed (log: $dir/build.log)"
}
[ -x "$prefix/sbin/slurmctld" ] || die "no $prefix/sbin/slurmctld after install"
secs=$(( $(date +%s) - start ))
echo "$secs" >"$dir/build-seconds"
touch "$prefix/.dl-built"
log "cold build of Slurm $VERSION took $secs s ($((secs / 60)) min $((secs % 60)) s)"
result
