# syntax=docker/dockerfile:1
# Build: docker build --build-arg REVISION=$(git rev-parse --short HEAD) -t llm-prober .
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG REVISION=unknown
ARG BRANCH=main
RUN REVISION=$REVISION BRANCH=$BRANCH scripts/build.sh /out/llm-prober

# distroless/static: CA certificates for TLS targets, no shell, no libc.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/llm-prober /bin/llm-prober
COPY examples/llm-prober.yml /etc/llm-prober/llm-prober.yml
USER 65532:65532
EXPOSE 9775
ENTRYPOINT ["/bin/llm-prober"]
CMD ["--config.file=/etc/llm-prober/llm-prober.yml"]
