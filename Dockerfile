# syntax=docker/dockerfile:1
# Build: docker build --build-arg REVISION=$(git rev-parse --short HEAD) -t llm-prober .
# Multi-arch (what scripts/release.sh runs when docker buildx is there):
#   docker buildx build --platform linux/amd64,linux/arm64 \
#     --build-arg REVISION=$(git rev-parse --short HEAD) \
#     -t ghcr.io/llm-prober/llm-prober:$(cat VERSION) --push .
# The build stage runs on the builder's own platform and cross-compiles
# (the binary is static, CGO_ENABLED=0), so no emulation is needed.
FROM --platform=$BUILDPLATFORM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG REVISION=unknown
ARG BRANCH=main
# Set by BuildKit for each --platform; empty otherwise (the host's).
ARG TARGETOS
ARG TARGETARCH
RUN GOOS=${TARGETOS:-linux} GOARCH=$TARGETARCH REVISION=$REVISION BRANCH=$BRANCH scripts/build.sh /out/llm-prober

# distroless/static: CA certificates for TLS targets, no shell, no libc.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/llm-prober /bin/llm-prober
COPY examples/llm-prober.yml /etc/llm-prober/llm-prober.yml
USER 65532:65532
EXPOSE 9775
ENTRYPOINT ["/bin/llm-prober"]
CMD ["--config.file=/etc/llm-prober/llm-prober.yml"]
