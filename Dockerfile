# gallivant's container image: `docker build --build-arg VERSION=v1.2.3
# --build-arg COMMIT=$(git rev-parse --short HEAD) --build-arg DATE=$(date -u
# +%Y-%m-%dT%H:%M:%SZ) -t gallivant .` (docs/releasing.md).
#
# Build stage: a static binary, stamped like the release archives.
FROM golang:1.26-alpine AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=devel
ARG COMMIT=unknown
ARG DATE=unknown
RUN CGO_ENABLED=0 go build -trimpath \
	-ldflags "-s -w -X main.stampVersion=${VERSION} -X main.stampCommit=${COMMIT} -X main.stampDate=${DATE}" \
	-o /out/gallivant ./cmd/gallivant

# Run stage: a small base with git (the agent checkouts and the command
# executor use the real git binary), CA certificates and a current Node (22,
# Alpine 3.22's), on which npm installs current agent CLIs (Claude Code
# 2.1.198 and later need Node 22; docs/agents.md), as a non-root user.
FROM alpine:3.22
RUN apk add --no-cache git ca-certificates openssh-client nodejs npm \
	&& adduser -D -u 10001 -h /home/gallivant gallivant
COPY --from=build /out/gallivant /usr/local/bin/gallivant
USER 10001:10001
ENV GALLIVANT_CACHE=/home/gallivant/.cache/gallivant
WORKDIR /work
ENTRYPOINT ["/usr/local/bin/gallivant"]
CMD ["--help"]
