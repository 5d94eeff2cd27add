# The test fixture "registry": one throwaway OCI registry, the CNCF Distribution registry on
# loopback (scripts/registry-peer.sh), which every image a test runs goes through: the tests'
# helpers (tests/adapters/engines.h import_room_image, tests/adapters/k8s_cluster.h
# import_into_cluster) push a room's image there (scripts/build-image.py --registry) and the
# engine — podman, a docker daemon, the test cluster's containerd — pulls it back by digest.
# Nothing is side-loaded into an engine.
#
# Its start is also a setup of the fixtures "docker", "docker-remap", "k8s" and "pg", and its
# stop a cleanup of all five, so that every test of an engine has the registry up from before
# its first image to after its last, whichever fixture it names (worker_cli_test's docker daemon
# joins through "pg": gtest_discover_tests' PROPERTIES cannot carry a list such as "pg;registry"
# — it splits it, and the ENVIRONMENT after it is lost). A test that joins none of them
# (podman's) names "registry" itself. The address is compiled into the tests
# (BATLEHUB_TEST_REGISTRY); when the registry is not installed (`make test` installs it:
# scripts/install-registry.sh) the start says so and an image helper fails naming the binary.
#
# Each build tree has its own port and data directory, as for the S3 server.
if(BATLEHUB_SANITIZE)
  set(_batlehub_registry_port 55473)
else()
  set(_batlehub_registry_port 55472)
endif()
set(BATLEHUB_TEST_REGISTRY_PORT ${_batlehub_registry_port} CACHE STRING "Loopback port of the tests' throwaway OCI registry")
set(BATLEHUB_TEST_REGISTRY_BIN "/opt/batlehub/peers/registry-3.1.2/registry" CACHE FILEPATH
  "The registry binary the tests' OCI registry runs (scripts/install-registry.sh builds it)")
add_compile_definitions(BATLEHUB_TEST_REGISTRY="127.0.0.1:${BATLEHUB_TEST_REGISTRY_PORT}"
                        BATLEHUB_TEST_REGISTRY_BIN="${BATLEHUB_TEST_REGISTRY_BIN}")

add_test(NAME registry.start
  COMMAND ${CMAKE_COMMAND} -E env REGISTRY=${BATLEHUB_TEST_REGISTRY_BIN}
    ${PROJECT_SOURCE_DIR}/scripts/registry-peer.sh start ${CMAKE_BINARY_DIR}/registry-peer ${BATLEHUB_TEST_REGISTRY_PORT})
set_tests_properties(registry.start PROPERTIES FIXTURES_SETUP "registry;docker;docker-remap;k8s;pg" TIMEOUT 60)
add_test(NAME registry.stop COMMAND ${PROJECT_SOURCE_DIR}/scripts/registry-peer.sh stop ${CMAKE_BINARY_DIR}/registry-peer)
set_tests_properties(registry.stop PROPERTIES FIXTURES_CLEANUP "registry;docker;docker-remap;k8s;pg" TIMEOUT 60)
