# The test fixture "s3": one throwaway S3 server, versitygw on loopback (scripts/s3-peer.sh),
# for every test that needs one. A test joins it with
#   FIXTURES_REQUIRED s3  ENVIRONMENT BATLEHUB_TEST_S3_ENDPOINT=${BATLEHUB_TEST_S3_ENDPOINT}
# and batlehub_s3_test_definitions(<target>) (the keys, the bucket, the binary),
# and skips, naming the binary, only when versitygw is not installed (`make test` installs
# it: scripts/install-peers.sh); once installed, a server that cannot be reached fails.
#
# Each build tree has its own port and data directory, so that the release and sanitizer
# trees, run one after the other or side by side, never share (or stop) each other's server.
if(BATLEHUB_SANITIZE)
  set(_batlehub_s3_port 55443)
else()
  set(_batlehub_s3_port 55442)
endif()
set(BATLEHUB_TEST_S3_PORT ${_batlehub_s3_port} CACHE STRING "Loopback port of the tests' throwaway S3 server")
set(BATLEHUB_TEST_S3_BIN "/opt/batlehub/peers/versitygw-1.8.0/versitygw" CACHE FILEPATH
  "The versitygw binary the tests' S3 server runs (scripts/install-peers.sh installs it)")
# The keys and the bucket scripts/s3-peer.sh starts the server with, compiled into a test
# that joins the fixture (batlehub_s3_test_definitions); the endpoint comes in its
# environment, BATLEHUB_TEST_S3_ENDPOINT. One variable: gtest_discover_tests' PROPERTIES
# keeps only the first of a list of ENVIRONMENT entries.
set(BATLEHUB_TEST_S3_ENDPOINT "http://127.0.0.1:${BATLEHUB_TEST_S3_PORT}")
function(batlehub_s3_test_definitions target)
  target_compile_definitions(${target} PRIVATE
    BATLEHUB_TEST_S3_BUCKET="batlehub-test"
    BATLEHUB_TEST_S3_ACCESS_KEY="batlehub-test"
    BATLEHUB_TEST_S3_SECRET_KEY="batlehub-test-secret"
    BATLEHUB_TEST_S3_BIN="${BATLEHUB_TEST_S3_BIN}")
endfunction()

add_test(NAME storage_s3.start
  COMMAND ${CMAKE_COMMAND} -E env VERSITYGW=${BATLEHUB_TEST_S3_BIN}
    ${PROJECT_SOURCE_DIR}/scripts/s3-peer.sh start ${CMAKE_BINARY_DIR}/s3-peer ${BATLEHUB_TEST_S3_PORT})
set_tests_properties(storage_s3.start PROPERTIES FIXTURES_SETUP s3 TIMEOUT 60)
add_test(NAME storage_s3.stop COMMAND ${PROJECT_SOURCE_DIR}/scripts/s3-peer.sh stop ${CMAKE_BINARY_DIR}/s3-peer)
set_tests_properties(storage_s3.stop PROPERTIES FIXTURES_CLEANUP s3 TIMEOUT 60)
