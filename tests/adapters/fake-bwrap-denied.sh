#!/bin/sh
# Stands in for bwrap on a host that refuses user namespaces (the AppArmor failure of
# RFC 0022 §2): it prints what bwrap prints there and runs nothing.
echo "bwrap: setting up uid map: Permission denied" >&2
exit 1
