# The test fixture "docker": one throwaway Docker daemon (scripts/docker-peer.sh) for every
# test that drives the `oci` runtime's docker engine. A test joins it with
#   FIXTURES_REQUIRED docker  ENVIRONMENT DOCKER_HOST=${BATLEHUB_TEST_DOCKER_HOST}
# (or BATLEHUB_TEST_DOCKER_HOST=…) and fails, never skips, when the daemon cannot be
# reached. Podman needs no fixture: it has no daemon.
#
# Each build tree has its own daemon — its own data root, exec root, pidfile and socket
# under <build tree>/docker-peer — so that the release and sanitizer trees, run one after the
# other or side by side, never share (or stop) each other's daemon. A unix socket's path has
# at most 107 bytes: a build tree too deep for that gets a directory under ${TMPDIR}/ named
# after a hash of the tree's path instead (still one per tree).
set(_batlehub_docker_dir "${CMAKE_BINARY_DIR}/docker-peer")
string(LENGTH "${_batlehub_docker_dir}" _batlehub_docker_dir_len)
if(_batlehub_docker_dir_len GREATER 80)
  string(MD5 _batlehub_docker_hash "${CMAKE_BINARY_DIR}")
  string(SUBSTRING "${_batlehub_docker_hash}" 0 12 _batlehub_docker_hash)
  if(DEFINED ENV{TMPDIR} AND NOT "$ENV{TMPDIR}" STREQUAL "")
    set(_batlehub_docker_tmp "$ENV{TMPDIR}")
  else()
    set(_batlehub_docker_tmp "/tmp")
  endif()
  set(_batlehub_docker_dir "${_batlehub_docker_tmp}/batlehub-docker-${_batlehub_docker_hash}")
endif()
set(BATLEHUB_TEST_DOCKER_HOST "unix://${_batlehub_docker_dir}/docker.sock" CACHE STRING
  "DOCKER_HOST of the tests' throwaway Docker daemon: unix://<its directory>/docker.sock")
# The directory is the socket's: one value decides both.
if(NOT BATLEHUB_TEST_DOCKER_HOST MATCHES "^unix://(/.+)/docker\\.sock$")
  message(FATAL_ERROR "BATLEHUB_TEST_DOCKER_HOST=${BATLEHUB_TEST_DOCKER_HOST} is not unix:///<dir>/docker.sock")
endif()
set(BATLEHUB_TEST_DOCKER_DIR "${CMAKE_MATCH_1}")

add_test(NAME oci_docker.start
  COMMAND ${PROJECT_SOURCE_DIR}/scripts/docker-peer.sh start ${BATLEHUB_TEST_DOCKER_DIR})
set_tests_properties(oci_docker.start PROPERTIES FIXTURES_SETUP docker TIMEOUT 90)
add_test(NAME oci_docker.stop COMMAND ${PROJECT_SOURCE_DIR}/scripts/docker-peer.sh stop ${BATLEHUB_TEST_DOCKER_DIR})
set_tests_properties(oci_docker.stop PROPERTIES FIXTURES_CLEANUP docker TIMEOUT 90)
