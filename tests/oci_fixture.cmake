# The test fixtures "docker" and "docker-remap": throwaway Docker daemons
# (scripts/docker-peer.sh) for every test that drives the `oci` runtime's docker engine —
# the second one with "userns-remap": "default", so that the runtime is also proven where
# the daemon maps every container's uids. Tests register with
# batlehub_discover_engine_tests() below, which joins each instance to its daemon; a test
# fails, never skips, when its daemon cannot be reached. Podman needs no fixture: it has no
# daemon.
#
# Each build tree has its own daemons — their own data roots, exec roots, pidfiles and
# sockets under <build tree>/docker-peer and <build tree>/docker-peer-remap — so that the
# release and sanitizer trees, run one after the other or side by side, never share (or
# stop) each other's daemon. A unix socket's path has at most 107 bytes: a build tree too
# deep for that gets a directory under ${TMPDIR}/ named after a hash of the tree's path
# instead (still one per tree).
function(_batlehub_docker_peer_host out_var suffix)
  set(dir "${CMAKE_BINARY_DIR}/docker-peer${suffix}")
  string(LENGTH "${dir}" len)
  if(len GREATER 80)
    string(MD5 hash "${CMAKE_BINARY_DIR}")
    string(SUBSTRING "${hash}" 0 12 hash)
    if(DEFINED ENV{TMPDIR} AND NOT "$ENV{TMPDIR}" STREQUAL "")
      set(tmp "$ENV{TMPDIR}")
    else()
      set(tmp "/tmp")
    endif()
    set(dir "${tmp}/batlehub-docker-${hash}${suffix}")
  endif()
  set(${out_var} "unix://${dir}/docker.sock" PARENT_SCOPE)
endfunction()

_batlehub_docker_peer_host(_batlehub_docker_default "")
_batlehub_docker_peer_host(_batlehub_docker_remap_default "-remap")
set(BATLEHUB_TEST_DOCKER_HOST "${_batlehub_docker_default}" CACHE STRING
  "DOCKER_HOST of the tests' throwaway Docker daemon: unix://<its directory>/docker.sock")
set(BATLEHUB_TEST_DOCKER_REMAP_HOST "${_batlehub_docker_remap_default}" CACHE STRING
  "DOCKER_HOST of the tests' throwaway Docker daemon with userns-remap: unix://<its directory>/docker.sock")

# The directory is the socket's: one value decides both.
foreach(var BATLEHUB_TEST_DOCKER_HOST BATLEHUB_TEST_DOCKER_REMAP_HOST)
  if(NOT ${var} MATCHES "^unix://(/.+)/docker\\.sock$")
    message(FATAL_ERROR "${var}=${${var}} is not unix:///<dir>/docker.sock")
  endif()
  set(${var}_DIR "${CMAKE_MATCH_1}")
endforeach()

add_test(NAME oci_docker.start
  COMMAND ${PROJECT_SOURCE_DIR}/scripts/docker-peer.sh start ${BATLEHUB_TEST_DOCKER_HOST_DIR})
set_tests_properties(oci_docker.start PROPERTIES FIXTURES_SETUP docker TIMEOUT 90)
add_test(NAME oci_docker.stop COMMAND ${PROJECT_SOURCE_DIR}/scripts/docker-peer.sh stop ${BATLEHUB_TEST_DOCKER_HOST_DIR})
set_tests_properties(oci_docker.stop PROPERTIES FIXTURES_CLEANUP docker TIMEOUT 90)

add_test(NAME oci_docker_remap.start
  COMMAND ${PROJECT_SOURCE_DIR}/scripts/docker-peer.sh start ${BATLEHUB_TEST_DOCKER_REMAP_HOST_DIR} --userns-remap)
set_tests_properties(oci_docker_remap.start PROPERTIES FIXTURES_SETUP docker-remap TIMEOUT 90)
add_test(NAME oci_docker_remap.stop
  COMMAND ${PROJECT_SOURCE_DIR}/scripts/docker-peer.sh stop ${BATLEHUB_TEST_DOCKER_REMAP_HOST_DIR})
set_tests_properties(oci_docker_remap.stop PROPERTIES FIXTURES_CLEANUP docker-remap TIMEOUT 90)

# Registers a gtest executable whose tests are parameterised by engine (tests/adapters/
# engines.h: …/podman, …/docker, …/docker_remap, …/podman_gvisor, …/docker_gvisor, and anything
# else, such as …/bwrap): the docker instances join their daemon's fixture (…/docker_gvisor the
# plain daemon's, which registers runsc) with its DOCKER_HOST in the environment,
# the rest join the tests' registry (tests/registry_fixture.cmake: the docker daemons' fixtures
# bring it up too), which every image a test runs is pulled from. NO_PRETTY_VALUES: a ctest name is the gtest name (…/podman); without
# it CMake appends "# GetParam() = " and the parameter's bytes.
#
# A sweep is engine-wide by design: it removes every container whose worker on this host is
# dead, whoever started it. So a test whose name says "sweep" (it sweeps, or it kills a worker
# and counts what the next sweep removes) holds its engine's lock: under ctest -j2 another
# test's sweep would otherwise take its dead worker's container first (CI, stop 52: the
# docker instance of "a_worker_killed_mid_run_leaves_a_container_that_the_next_sweep_removes"
# counted 0 containers removed).
function(batlehub_discover_engine_tests target timeout)
  gtest_discover_tests(${target} DISCOVERY_TIMEOUT 30 NO_PRETTY_VALUES
    TEST_FILTER "-*/docker:*/docker_remap:*/docker_gvisor:*sweep*"
    PROPERTIES TIMEOUT ${timeout} FIXTURES_REQUIRED registry)
  gtest_discover_tests(${target} DISCOVERY_TIMEOUT 30 NO_PRETTY_VALUES
    TEST_FILTER "*sweep*-*/docker:*/docker_remap:*/docker_gvisor"
    PROPERTIES TIMEOUT ${timeout} FIXTURES_REQUIRED registry RESOURCE_LOCK sweep-podman)
  gtest_discover_tests(${target} DISCOVERY_TIMEOUT 30 NO_PRETTY_VALUES TEST_FILTER "*/docker:*/docker_gvisor-*sweep*"
    PROPERTIES TIMEOUT ${timeout} FIXTURES_REQUIRED docker
    ENVIRONMENT BATLEHUB_TEST_DOCKER_HOST=${BATLEHUB_TEST_DOCKER_HOST})
  gtest_discover_tests(${target} DISCOVERY_TIMEOUT 30 NO_PRETTY_VALUES TEST_FILTER "*sweep*/docker:*sweep*/docker_gvisor"
    PROPERTIES TIMEOUT ${timeout} FIXTURES_REQUIRED docker RESOURCE_LOCK sweep-docker
    ENVIRONMENT BATLEHUB_TEST_DOCKER_HOST=${BATLEHUB_TEST_DOCKER_HOST})
  gtest_discover_tests(${target} DISCOVERY_TIMEOUT 30 NO_PRETTY_VALUES TEST_FILTER "*/docker_remap-*sweep*"
    PROPERTIES TIMEOUT ${timeout} FIXTURES_REQUIRED docker-remap
    ENVIRONMENT BATLEHUB_TEST_DOCKER_REMAP_HOST=${BATLEHUB_TEST_DOCKER_REMAP_HOST})
  gtest_discover_tests(${target} DISCOVERY_TIMEOUT 30 NO_PRETTY_VALUES TEST_FILTER "*sweep*/docker_remap"
    PROPERTIES TIMEOUT ${timeout} FIXTURES_REQUIRED docker-remap RESOURCE_LOCK sweep-docker-remap
    ENVIRONMENT BATLEHUB_TEST_DOCKER_REMAP_HOST=${BATLEHUB_TEST_DOCKER_REMAP_HOST})
endfunction()
