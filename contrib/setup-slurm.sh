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
# Cached: once prefix/.dl-built exists a run only checks (seconds).  A
# prefix built before slurmdbd's MySQL backend was configured (no
# lib/slurm/accounting_storage_mysql.so) is rebuilt: without it no
# accounting test can run on this version.  A build happens aside
# (new/) and replaces the tree and prefix by renaming at the end, so
# that tests and plugin builds using the old ones keep working during
# the build (10 to 30 minutes); a lock makes a second run wait for the first.
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

# slurmdbd stores accounting through this plugin only (issue 26).
mysql_plugin=$prefix/lib/slurm/accounting_storage_mysql.so
cached() {
	[ -f "$prefix/.dl-built" ] && [ -x "$prefix/sbin/slurmctld" ] &&
		[ -f "$tree/config.h" ] && [ -f "$mysql_plugin" ]
}
if cached; then
	log "Slurm $VERSION cached in $prefix (cold build took $(cat "$dir/build-seconds" 2>/dev/null || echo '?') s)"
	result
	exit 0
fi
[ "$(id -u)" = 0 ] || die "must run as root the first time (apt-get)"
mkdir -p "$dir"
# Two runs at once (CI and a developer) would build twice in the same
# new/: the second waits here and then finds the first one's result.
exec 9<"$dir"
flock 9
if cached; then
	log "Slurm $VERSION built by another run in $prefix"
	result
	exit 0
fi
if [ -f "$prefix/.dl-built" ]; then
	log "cached $prefix has no $(basename "$mysql_plugin") (built without MariaDB headers): rebuilding"
fi

# What configure looks for beyond setup.sh's packages: MUNGE and the
# headers every Slurm build needs, and the MariaDB client headers
# (mariadb_config) for slurmdbd's accounting_storage/mysql.  Optional
# features stay off (below).
PKGS=(build-essential libmunge-dev munge libpam0g-dev dpkg-dev libmariadb-dev)
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

# Built in new/slurm-VERSION (renamed to $tree at the end: only its
# headers and config.h are used from there) and installed into
# new/root$prefix with DESTDIR (renamed to $prefix).
new=$dir/new
ntree=$new/slurm-$VERSION
rm -rf "$new"
mkdir -p "$new/unpack"
log "unpacking $tarball"
# The tarball's top directory is named after SchedMD's git tag
# (slurm-slurm-24-11-5-1), not slurm-VERSION: unpack aside and rename.
tar -C "$new/unpack" -xzf "$tarball"
top=$(find "$new/unpack" -mindepth 1 -maxdepth 1 -type d)
[ -n "$top" ] && [ -x "$top/configure" ] ||
	die "no single source directory with configure in $tarball"
mv "$top" "$ntree"
rmdir "$new/unpack"

start=$(date +%s)
# --enable-multiple-slurmd: the harness runs N slurmd on one host.
# MUNGE: auth/munge and cred/munge.  Everything else optional is off to
# keep the build short (no GUI, PMIx, UCX, GPUs, HDF5, RRD, slurmrestd,
# Lua, ...); -O0 without debug info to shorten compiling: the build is on
# the suite's critical path (job_mgr.c compiles in 1.1 s at -O0, 2.8 s at
# -O1; ready 1,032-1,037 s into the suite instead of 1,392).  The tests
# pass on it.  24.11.5's test_cooperation.sh then took 882-955 s in the
# suite, against 323-345 s at -O1 beside one other stream: its check (2)
# (562 s of it in one run) waited for a full cluster that a stream of about
# a job a second never made, slurmctld answering slower at -O0 under that
# load; the check tops its stream up in one go since 2026-12-03.
# --with-mysql_config=/usr/bin: configure fails, rather than silently
# leaving accounting_storage/mysql out, if mariadb_config is missing.
log "configuring Slurm $VERSION into $prefix"
(cd "$ntree" && ./configure --prefix="$prefix" --sysconfdir="$prefix/etc" \
	--with-munge --enable-multiple-slurmd --disable-debug \
	--with-mysql_config=/usr/bin \
	--without-pmix --without-ucx --without-hdf5 --without-rrdtool \
	--without-nvml --without-rsmi --without-oneapi --without-jwt \
	--without-yaml --without-lua --without-http-parser --without-json \
	--without-libcurl --without-dbus --without-lz4 --without-freeipmi \
	--without-netloc --without-hwloc --without-selinux \
	--disable-slurmrestd --disable-x11 --disable-sview --disable-glibtest \
	--disable-gtktest \
	CFLAGS="-O0 -g0" SUCMD=/bin/su SLEEP_CMD=/bin/sleep \
	>"$dir/build.log" 2>&1) || {
	tail -30 "$dir/build.log" >&2
	die "configure failed (log: $dir/build.log)"
}
jobs=${DL_SLURM_JOBS:-$(nproc)}
log "building Slurm $VERSION with make -j$jobs (24.11.5: 626 s on 2 loaded cores, 1847 s at load 25)"
(cd "$ntree" && make -j"$jobs" >>"$dir/build.log" 2>&1 &&
	make install DESTDIR="$new/root" >>"$dir/build.log" 2>&1) || {
	tail -40 "$dir/build.log" >&2
	die "build failed (log: $dir/build.log)"
}
[ -x "$new/root$prefix/sbin/slurmctld" ] ||
	die "no sbin/slurmctld after install (log: $dir/build.log)"
[ -f "$new/root$mysql_plugin" ] ||
	die "no $(basename "$mysql_plugin") after install (log: $dir/build.log)"
secs=$(( $(date +%s) - start ))
touch "$new/root$prefix/.dl-built"
# Daemons already running keep the old files open; renaming both aside
# and the new ones in leaves at most a moment without a prefix.
old=$dir/old.$$
mkdir "$old"
[ ! -e "$prefix" ] || mv "$prefix" "$old/prefix"
[ ! -e "$tree" ] || mv "$tree" "$old/tree"
mv "$new/root$prefix" "$prefix"
mv "$ntree" "$tree"
rm -rf "$old" "$new"
echo "$secs" >"$dir/build-seconds"
log "cold build of Slurm $VERSION took $secs s ($((secs / 60)) min $((secs % 60)) s)"
result
