#!/usr/bin/env bash
# Builds the release tarballs, as the Prometheus projects name them:
#   dist/llm-prober-VERSION.OS-ARCH.tar.gz for linux and darwin on amd64
#   and arm64, each a directory with the static binary, LICENSE, README.md,
#   CHANGELOG.md and the example config; plus
#   dist/sha256sums.txt. VERSION is the file VERSION.
# Usage: scripts/release.sh [PLATFORM...]   (default: all four, e.g. linux/arm64)
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(cat VERSION)
platforms=("$@")
[ ${#platforms[@]} -gt 0 ] || platforms=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64)
mkdir -p dist
for p in "${platforms[@]}"; do
  os=${p%/*} arch=${p#*/}
  name=llm-prober-$version.$os-$arch
  stage=$(mktemp -d)
  mkdir "$stage/$name"
  # The same script, flags and version stamping as the Docker image.
  GOOS=$os GOARCH=$arch scripts/build.sh "$stage/$name/llm-prober"
  cp LICENSE README.md CHANGELOG.md "$stage/$name/"
  cp examples/llm-prober.yml "$stage/$name/llm-prober.yml"
  # Reproducible archive: fixed owner, order and mtime.
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 \
    -C "$stage" -czf "dist/$name.tar.gz" "$name"
  rm -rf "$stage"
  echo "dist/$name.tar.gz"
done
(cd dist && sha256sum llm-prober-"$version".*.tar.gz > sha256sums.txt)
