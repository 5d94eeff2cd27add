#!/usr/bin/env bash
# Builds ISA-L's igzip (BSD-3-Clause) as a static archive for the agent's gzip inflater
# (src/agent/gunzip.h says why ISA-L, and why not zlib, libdeflate or zlib-ng).
#
# Debian 12 packages ISA-L (source package `libisal`, binaries libisal2 and libisal-dev) but
# ships only the shared library, and the agent is static (scripts/check-fence.sh, check 4).
# So the archive is built here from Debian 12's own source package, the same sources and
# patches libisal-dev is built from: fetched by apt from the archive install-deps.sh already
# installs from (signed Release -> Sources -> the files' hashes), then checked again against
# the hashes pinned below. apt's own configuration is not touched: the deb-src index lives in
# a scratch directory for the length of the fetch.
#
#   libisal 2.30.0-5 (bookworm/main), units igzip and crc (the rest of ISA-L is not built)
#       -> /opt/batlehub/isal-2.30.0-5/lib/libisal.a, include/isa-l/igzip_lib.h
#
# Built with ISA-L's own Makefile.unx, -O2 -fPIC (the fuzz build's executables are PIE);
# nasm (deps.txt) assembles its x86-64 kernels, chosen at run time by CPU. Cached by version
# outside the tree, written whole or not at all; idempotent. Cold: ~2 s to fetch, ~5 s to
# build on 2 cores. As root. To move to another Debian revision, change VERSION and the three
# hashes together (`apt-get source --download-only libisal=V`, then sha256sum).
set -euo pipefail
VERSION=2.30.0-5
UPSTREAM=${VERSION%-*}
declare -A SHA256=(
  ["libisal_${VERSION}.dsc"]=f0376ddb24f0126641161054002a251ba48b52c2e28fe29cc7b5106e9f0938a8
  ["libisal_${UPSTREAM}.orig.tar.xz"]=f363f1be3d657d5676cef5253ee2233e60116e2fa9c9de86881185bf81e0e4b8
  ["libisal_${VERSION}.debian.tar.xz"]=7774a820dd205a8a1b3525e4c0edd9e20c3481ea90432255817cc9e10f1cbf83
)
prefix=${BATLEHUB_ISAL_PREFIX:-/opt/batlehub}
dir="$prefix/isal-$VERSION"

say() { echo "install-isal: $*"; }
die() { echo "install-isal: $*" >&2; exit 1; }

if [ -f "$dir/lib/libisal.a" ] && [ -f "$dir/include/isa-l/igzip_lib.h" ]; then
  say "installed: libisal $VERSION $dir"
  exit 0
fi
[ "$(id -u)" -eq 0 ] || die "must run as root to install ISA-L into $dir"
command -v nasm >/dev/null || die "nasm is not installed (scripts/deps.txt lists it: run scripts/install-deps.sh)"
command -v dpkg-source >/dev/null || die "dpkg-source is not installed (dpkg-dev, from build-essential in scripts/deps.txt)"

mkdir -p "$prefix"
scratch="$(mktemp -d "$prefix/.isal-build.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/apt/lists/partial" "$scratch/apt/cache/archives/partial" "$scratch/src"
printf 'deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main\n' \
  > "$scratch/apt/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$scratch/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$scratch/apt/lists" -o "Dir::Cache=$scratch/apt/cache"
  -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
t0=$(date +%s)
apt-get "${apt_opts[@]}" update -qq || die "apt-get update of bookworm's deb-src index failed (above)"
(cd "$scratch/src" && apt-get "${apt_opts[@]}" source --download-only -qq "libisal=$VERSION") ||
  die "apt-get source libisal=$VERSION failed (above)"
for f in "${!SHA256[@]}"; do
  [ -f "$scratch/src/$f" ] || die "apt fetched no $f"
  got=$(sha256sum "$scratch/src/$f" | cut -d' ' -f1)
  [ "$got" = "${SHA256[$f]}" ] || die "$f: sha256 $got, pinned ${SHA256[$f]}"
done
dpkg-source -x "$scratch/src/libisal_${VERSION}.dsc" "$scratch/src/tree" >"$scratch/dpkg-source.log" 2>&1 ||
  { cat "$scratch/dpkg-source.log" >&2; die "dpkg-source could not unpack libisal $VERSION (above)"; }
say "building libisal $VERSION (igzip, crc) with $(nasm -v)"
make -C "$scratch/src/tree" -f Makefile.unx -j2 units=igzip lib CFLAGS_="-Wall -fPIC" >"$scratch/build.log" 2>&1 ||
  { tail -20 "$scratch/build.log" >&2; die "building libisal failed (the log's end is above)"; }

stage="$scratch/out"
mkdir -p "$stage/lib" "$stage/include/isa-l"
cp "$scratch/src/tree/bin/isa-l.a" "$stage/lib/libisal.a"
cp "$scratch/src/tree/include/igzip_lib.h" "$stage/include/isa-l/igzip_lib.h"
cp "$scratch/src/tree/LICENSE" "$stage/LICENSE"
rm -rf "$dir"
mv "$stage" "$dir"
say "built $dir in $(( $(date +%s) - t0 )) s ($(stat -c %s "$dir/lib/libisal.a") bytes)"
