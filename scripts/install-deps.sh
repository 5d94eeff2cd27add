#!/usr/bin/env bash
# Installs the Debian packages listed in scripts/deps.txt (as root, on Debian 12), then
# configures the container engines among them (scripts/setup-oci-engines.sh) and builds ISA-L's
# static archive from Debian's source package (scripts/install-isal.sh). Does nothing
# when the packages are all present and the engines configured already.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
mapfile -t pkgs < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$here/deps.txt")
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#pkgs[@]} packages present"
else
  echo "install-deps: installing ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "install-deps: must run as root to install packages" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
"$here/setup-oci-engines.sh"
"$here/install-isal.sh"
