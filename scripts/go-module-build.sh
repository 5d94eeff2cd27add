# Sourced, not run: what the scripts that build a test peer from the Go module proxy share
# (scripts/install-kube-router.sh, scripts/install-gvisor-shim.sh). The caller defines
# say() and die() and runs as root.

# Sets go_bin: $GO, else `go` on PATH, else /usr/local/go/bin/go; dies naming WHAT when there
# is none.
find_go() {
  local what=$1
  go_bin="${GO:-}"
  if [ -z "$go_bin" ]; then
    if command -v go >/dev/null 2>&1; then go_bin="$(command -v go)"; else go_bin=/usr/local/go/bin/go; fi
  fi
  [ -x "$go_bin" ] || die "$what is built from the Go module proxy; no 'go' found (set GO=/path/to/go)"
}

# MODULE@VERSION's source, downloaded (`go mod download`, which the checksum database checks
# too), its sum required to be SUM, copied writable to DEST.
go_module_source() {
  local module=$1 version=$2 want_sum=$3 dest=$4 info src sum err
  info="$(cd "$(dirname "$dest")" && GOFLAGS=-mod=mod "$go_bin" mod download -json "$module@$version")"
  read -r src sum err < <(python3 -c 'import json, sys; d = json.load(sys.stdin); print(d.get("Dir", "-"), d.get("Sum", "-"), "error" if d.get("Error") else "ok")' <<<"$info")
  [ "$err" = ok ] || die "go mod download $module@$version: $info"
  [ "$sum" = "$want_sum" ] || die "$module@$version: sum $sum, expected $want_sum"
  cp -r "$src" "$dest"
  chmod -R u+w "$dest"
}

# The binary BUILT installed as DIR/NAME, DIR replaced whole: renamed into place from a
# directory beside BUILT, so that an interrupted install never looks installed.
install_whole() {
  local built=$1 dir=$2 name=$3 out
  out="$(dirname "$built")/out"
  mkdir "$out"
  mv "$built" "$out/$name"
  chmod 0755 "$out" "$out/$name"
  rm -rf "$dir"
  mv "$out" "$dir"
}
