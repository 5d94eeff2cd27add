# The test fixture "pg": one throwaway PostgreSQL server (scripts/pg-peer.sh) for every
# test that needs one. A test joins it with
#   FIXTURES_REQUIRED pg  ENVIRONMENT BATLEHUB_TEST_PG_DSN=${BATLEHUB_TEST_PG_DSN}
# and fails, never skips, when the server cannot be reached.
#
# Each build tree has its own port, so that the release and sanitizer trees, run one after
# the other or side by side, never share (or stop) each other's server.
if(BATLEHUB_SANITIZE)
  set(_batlehub_pg_port 55433)
else()
  set(_batlehub_pg_port 55432)
endif()
set(BATLEHUB_TEST_PG_PORT ${_batlehub_pg_port} CACHE STRING "Loopback port of the tests' throwaway PostgreSQL server")
set(BATLEHUB_TEST_PG_DSN "postgresql://app@127.0.0.1:${BATLEHUB_TEST_PG_PORT}/batlehub")

add_test(NAME queue_pg.start
  COMMAND ${PROJECT_SOURCE_DIR}/scripts/pg-peer.sh start ${CMAKE_BINARY_DIR}/pg-peer ${BATLEHUB_TEST_PG_PORT})
set_tests_properties(queue_pg.start PROPERTIES FIXTURES_SETUP pg TIMEOUT 60)
add_test(NAME queue_pg.stop COMMAND ${PROJECT_SOURCE_DIR}/scripts/pg-peer.sh stop ${CMAKE_BINARY_DIR}/pg-peer)
set_tests_properties(queue_pg.stop PROPERTIES FIXTURES_CLEANUP pg TIMEOUT 60)
