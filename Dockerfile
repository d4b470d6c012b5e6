# transpose-lab in a container, for reruns on other GPUs:
#   make docker-build                      (docker build -t transpose-lab .)
#   make docker-run                        (docker run --gpus all -v $PWD/results:/results transpose-lab)
# The image installs its dependencies through scripts/install-deps, the script CI runs, and
# by default runs `make report` with the results and the report written to the mounted
# /results folder, under the machine's tag.
FROM nvidia/cuda:13.0.0-devel-ubuntu24.04

ENV DEBIAN_FRONTEND=noninteractive
WORKDIR /src
COPY scripts/install-deps scripts/install-deps
RUN scripts/install-deps
COPY . /src
RUN make build

VOLUME /results
ENTRYPOINT ["scripts/docker-entry"]
CMD ["report"]
