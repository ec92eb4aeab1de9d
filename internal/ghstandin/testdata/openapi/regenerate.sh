#!/usr/bin/env bash
# Rebuilds subset.json, the served operations' part of GitHub's OpenAPI
# description, from the pinned npm package. Needs npm, tar, sha256sum and
# go; CI does not run it (the subset is committed so that CI stays offline).
#
#   internal/ghstandin/testdata/openapi/regenerate.sh
#
# To move to a newer description, change VERSION and SHA256 together (the
# checksum is the package tarball's, `sha256sum octokit-openapi-X.tgz`), run
# this script and then `go test ./internal/ghstandin -run TestContract -v`.
set -euo pipefail
VERSION=23.0.2
SHA256=71a18407dd5e8464f4e0525daf03deabbe65abd9287d6adc7b5d98f516cd0d0c
here="$(cd "$(dirname "$0")" && pwd)"
pkg="$(cd "$here/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
npm pack --silent "@octokit/openapi@$VERSION" >/dev/null
tgz="octokit-openapi-$VERSION.tgz"
echo "$SHA256  $tgz" | sha256sum --check --quiet
tar -xzf "$tgz" package/generated/api.github.com.deref.json
cd "$pkg"
go test . -run '^TestOpenAPISubset$' -count=1 -openapi-source="$work/package/generated/api.github.com.deref.json" -v | grep -E 'wrote|FAIL|ok' 
