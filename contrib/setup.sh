#!/usr/bin/env bash
# setup.sh - make a fresh Debian 12 machine ready to build and test
# slurm-datalocality, as root: install the packages, fetch the source of
# exactly the installed Slurm, apply Debian's patches and configure it the
# way debian/rules does.  Idempotent: a second run only checks.
#
# Prints, as its last line, the configured Slurm source directory.
# Environment: DL_DEPS_DIR (default /var/cache/slurm-datalocality).
set -euo pipefail

DEPS_DIR=${DL_DEPS_DIR:-/var/cache/slurm-datalocality}
PKGS=(build-essential autoconf automake libtool pkg-config dpkg-dev
      check libtrilinos-zoltan-dev libopenmpi-dev openmpi-bin
      slurmctld slurmd slurm-client libslurm-dev munge libmunge-dev libpam0g-dev
      libgsl-dev gnuplot-nox valgrind clang iproute2 bc pv acl python3
      mariadb-server slurmdbd)

log() { echo "setup: $*" >&2; }

need_root() {
	if [ "$(id -u)" != 0 ]; then
		echo "setup: must run as root (apt-get install)" >&2
		exit 1
	fi
}

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	need_root
	log "installing ${missing[*]}"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "${missing[@]}" >&2
fi

# Debian's daemons come with units that may have started them: the tests
# start their own, so the packaged ones must not hold ports or munge.
for svc in slurmctld slurmd munge; do
	if command -v systemctl >/dev/null 2>&1 &&
	   systemctl is-active --quiet "$svc" 2>/dev/null; then
		systemctl stop "$svc" >&2 || true
	fi
done

version=$(dpkg-query -W -f='${Version}' slurmctld)
upstream=${version%%-*}
src="$DEPS_DIR/slurm-$version"
tree="$src/slurm-wlm-$upstream"
if [ -f "$tree/.dl-configured" ]; then
	echo "$tree"
	exit 0
fi
need_root

# apt-get source needs deb-src entries; Debian 12 ships them disabled.
if ! apt-get source --print-uris -qq "slurm-wlm=$version" >/dev/null 2>&1; then
	log "enabling deb-src"
	if [ -f /etc/apt/sources.list.d/debian.sources ]; then
		sed -i 's/^Types: deb$/Types: deb deb-src/' \
			/etc/apt/sources.list.d/debian.sources
	fi
	if [ -f /etc/apt/sources.list ] &&
	   grep -q '^deb ' /etc/apt/sources.list &&
	   ! grep -q '^deb-src ' /etc/apt/sources.list; then
		sed -n 's/^deb /deb-src /p' /etc/apt/sources.list \
			>/etc/apt/sources.list.d/dl-deb-src.list
	fi
	apt-get update -qq
fi

rm -rf "$src"
mkdir -p "$src"
log "fetching Slurm source $version into $src"
# apt-get source applies Debian's patch series when it unpacks.
(cd "$src" && apt-get source -qq "slurm-wlm=$version" >&2)
[ -d "$tree" ] || { echo "setup: no $tree after apt-get source" >&2; exit 1; }

# The flags of debian/rules' override_dh_auto_configure, less pmix (not
# needed for headers) - what matters is that config.h describes the
# installed daemons (multiple-slurmd, paths).
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
log "configuring Slurm (about 20 s)"
(cd "$tree" && ./configure --prefix=/usr --sysconfdir=/etc/slurm \
	--libdir="/usr/lib/$multiarch" --with-munge --enable-pam \
	--without-rpath --disable-debug --enable-multiple-slurmd \
	SUCMD=/bin/su SLEEP_CMD=/bin/sleep >"$src/configure.log" 2>&1) || {
	tail -30 "$src/configure.log" >&2
	exit 1
}
touch "$tree/.dl-configured"
echo "$tree"
