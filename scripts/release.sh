#!/usr/bin/env bash
# Builds the release tarballs, as the Prometheus projects name them:
#   dist/llm-prober-VERSION.OS-ARCH.tar.gz for linux and darwin on amd64
#   and arm64, each a directory with the static binary, LICENSE, README.md,
#   CHANGELOG.md, the docs/ the README links to, and the example config; plus
#   dist/sha256sums.txt. VERSION is the file VERSION.
# Then, when docker buildx and a Docker engine are there (else it says it
# skips), the multi-arch container image $IMAGE:VERSION from the
# Dockerfile, for the platforms in $IMAGE_PLATFORMS; pushed only with
# PUSH=1 (log in to the registry first). Several platforms need a builder
# that supports them (`docker buildx create --use`, or Docker's containerd
# image store); the Dockerfile cross-compiles, so no QEMU. The Kubernetes manifests
# (deploy/kubernetes) run ghcr.io/llm-prober/llm-prober:VERSION.
# Usage: scripts/release.sh [PLATFORM...]   (default: all four, e.g. linux/arm64)
# Environment:
#   IMAGE            image name (default ghcr.io/llm-prober/llm-prober)
#   IMAGE_PLATFORMS  default linux/amd64,linux/arm64
#   PUSH=1           push the image (otherwise it is only built, as a check)
#   SKIP_IMAGE=1     tarballs only
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
  mkdir "$stage/$name/docs"
  cp docs/*.md docs/*.png docs/*.svg "$stage/$name/docs/"
  cp examples/llm-prober.yml "$stage/$name/llm-prober.yml"
  # Reproducible archive: fixed owner, order and mtime.
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 \
    -C "$stage" -czf "dist/$name.tar.gz" "$name"
  rm -rf "$stage"
  echo "dist/$name.tar.gz"
done
(cd dist && sha256sum llm-prober-"$version".*.tar.gz > sha256sums.txt)

# The container image.
image=${IMAGE:-ghcr.io/llm-prober/llm-prober}:$version
if [ -n "${SKIP_IMAGE:-}" ]; then
  echo "SKIP_IMAGE set: not building $image" >&2
  exit 0
fi
if ! command -v docker >/dev/null 2>&1 || ! docker buildx version >/dev/null 2>&1; then
  echo "docker buildx not found: skipping the image $image (tarballs are done)" >&2
  exit 0
fi
if ! docker info >/dev/null 2>&1; then
  echo "no Docker engine reachable: skipping the image $image (tarballs are done)" >&2
  exit 0
fi
output=()
if [ "${PUSH:-}" = 1 ]; then
  output=(--push)
else
  echo "building $image without pushing (PUSH=1 pushes)" >&2
fi
docker buildx build \
  --platform "${IMAGE_PLATFORMS:-linux/amd64,linux/arm64}" \
  --build-arg REVISION="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
  --build-arg BRANCH="$(git rev-parse --abbrev-ref HEAD 2>/dev/null || echo unknown)" \
  --tag "$image" ${output[@]+"${output[@]}"} .
echo "$image"
