#!/usr/bin/env bash
# The GitHub Action's install step (action.yml): puts gallivant
# $GALLIVANT_VERSION on the PATH. It downloads the release archive for the
# runner's system and architecture, checks it against the release's
# checksums.txt and unpacks it; when the release has no such archive (or
# there is no release, as for a branch), it falls back to `go install` of
# the same version. A checksum mismatch is an error, never a fallback.
#
# Without a version it installs the Action's own: the release its ref
# names (GALLIVANT_ACTION_REF, github.action_ref, when that is vX.Y.Z),
# else a build of the Action's own checkout ($GITHUB_ACTION_PATH), which
# GitHub fetched at the ref the workflow pinned; version source builds
# that checkout always. A release archive is checked only against its
# release's checksums.txt (docs/github.md says why no second source).
#
# Environment: GALLIVANT_VERSION (v1.2.3, latest, source or empty), RUNNER_OS, RUNNER_ARCH,
# RUNNER_TEMP, GITHUB_PATH, GITHUB_OUTPUT (set by Actions); GITHUB_TOKEN
# (optional, for the latest-release lookup); GALLIVANT_RELEASES (the
# releases' base URL, https://github.com/gallivant/gallivant/releases, which
# tests point at a directory of fake releases); GALLIVANT_API (the REST URL).
set -euo pipefail

module=github.com/gallivant/gallivant/cmd/gallivant
releases=${GALLIVANT_RELEASES:-https://github.com/gallivant/gallivant/releases}
api=${GALLIVANT_API:-${GITHUB_API_URL:-https://api.github.com}}
version=${GALLIVANT_VERSION:-}
if [ -z "$version" ]; then
	ref=${GALLIVANT_ACTION_REF:-}
	if [[ "$ref" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
		version=$ref
	elif [ -n "${GITHUB_ACTION_PATH:-}" ] && [ -f "$GITHUB_ACTION_PATH/go.mod" ]; then
		version=source
	else
		echo "gallivant: no version to install: pin the Action to a release (uses: gallivant/gallivant@vX.Y.Z) or set its version input" >&2
		exit 1
	fi
fi
bin="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/gallivant-bin"
mkdir -p "$bin"

case "${RUNNER_OS:-$(uname -s)}" in
Linux) os=linux ;;
macOS | Darwin) os=darwin ;;
Windows | MINGW* | MSYS*) os=windows ;;
*) echo "gallivant: unsupported runner OS ${RUNNER_OS:-$(uname -s)}" >&2; exit 1 ;;
esac
case "${RUNNER_ARCH:-$(uname -m)}" in
X64 | x86_64 | amd64) arch=amd64 ;;
ARM64 | arm64 | aarch64) arch=arm64 ;;
*) echo "gallivant: unsupported runner architecture ${RUNNER_ARCH:-$(uname -m)}" >&2; exit 1 ;;
esac

if [ "$version" = latest ]; then
	auth=()
	if [ -n "${GITHUB_TOKEN:-}" ]; then auth=(-H "Authorization: Bearer $GITHUB_TOKEN"); fi
	tag=$(curl -fsSL "${auth[@]}" "$api/repos/gallivant/gallivant/releases/latest" 2>/dev/null |
		sed -n 's/^ *"tag_name": *"\([^"]*\)".*/\1/p' | head -n 1 || true)
	if [ -n "$tag" ]; then version=$tag; fi
fi

exe=gallivant
ext=tar.gz
if [ "$os" = windows ]; then exe=gallivant.exe; ext=zip; fi
installed=""
if [ "$version" = source ]; then
	if [ -z "${GITHUB_ACTION_PATH:-}" ] || [ ! -f "$GITHUB_ACTION_PATH/go.mod" ]; then
		echo "gallivant: version source needs the Action's own checkout (GITHUB_ACTION_PATH)" >&2
		exit 1
	fi
	if ! command -v go >/dev/null; then
		echo "gallivant: building the Action's own source needs Go; add actions/setup-go before this action, or pin the Action to a release tag" >&2
		exit 1
	fi
	(cd "$GITHUB_ACTION_PATH" && CGO_ENABLED=0 go build -trimpath -o "$bin/$exe" ./cmd/gallivant)
	installed="built from the Action's own source at ${GALLIVANT_ACTION_REF:-its ref}"
elif [[ "$version" =~ ^v[0-9]+\.[0-9]+\.[0-9]+ ]]; then
	archive="gallivant_${version#v}_${os}_${arch}.${ext}"
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	if curl -fsSL -o "$work/$archive" "$releases/download/$version/$archive" &&
		curl -fsSL -o "$work/checksums.txt" "$releases/download/$version/checksums.txt"; then
		want=$(awk -v f="$archive" '$2 == f { print $1 }' "$work/checksums.txt")
		got=$( (sha256sum "$work/$archive" 2>/dev/null || shasum -a 256 "$work/$archive") | awk '{ print $1 }')
		if [ -z "$want" ] || [ "$want" != "$got" ]; then
			echo "gallivant: $archive does not match the release's checksums.txt; refusing to install it" >&2
			exit 1
		fi
		if [ "$ext" = zip ]; then
			unzip -q -o "$work/$archive" "$exe" -d "$bin"
		else
			tar -xzf "$work/$archive" -C "$bin" "$exe"
		fi
		installed="release $archive"
	else
		echo "gallivant: no release archive $archive for $version; building it with go install" >&2
	fi
fi
if [ -z "$installed" ] && [ "$version" != source ]; then
	if ! command -v go >/dev/null; then
		echo "gallivant: no release archive for $version and no Go to build it; add actions/setup-go before this action" >&2
		exit 1
	fi
	GOBIN="$bin" go install "$module@$version"
	installed="go install $module@$version"
fi
chmod +x "$bin/$exe"
if [ -n "${GITHUB_PATH:-}" ]; then echo "$bin" >>"$GITHUB_PATH"; fi
ran=$("$bin/$exe" version | awk '{ print $2 }')
if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "version=$ran" >>"$GITHUB_OUTPUT"; fi
echo "gallivant: installed $ran ($installed) into $bin" >&2
