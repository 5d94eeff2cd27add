// A version as a package URL (github.com/package-url/purl-spec): what the network scanners
// send to OSV and Socket, the one thing about a package that leaves the worker.
#pragma once

#include <optional>
#include <string>

#include "core/findings.h"

namespace batlehub::core {

// pkg:<type>/<namespace>/<name>@<version>, each segment percent-encoded (RFC 3986's
// unreserved set kept) and normalised as the spec says for its type: PyPI names lower-case
// with '_' as '-', an npm scope as its namespace, Maven's group:artifact split, Composer's
// vendor/name and a Go module's path as namespace segments. nullopt for a name the type's
// grammar cannot hold (a Maven name without its group, an empty segment) and for conda,
// whose PURL names a channel and a build this worker does not know.
std::optional<std::string> purl_of(const Package& p);

// The PURL type of a kind ("npm", "pypi", "cargo", "gem", "composer", "golang", "maven",
// "nuget", "conda").
std::string purl_type(PackageKind k);

}  // namespace batlehub::core
