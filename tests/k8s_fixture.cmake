# The test fixture "k8s": one throwaway single-node Kubernetes on loopback
# (scripts/k8s-peer.sh) for every test that drives the `kubernetes` runtime. A test joins it
# with
#   FIXTURES_REQUIRED "k8s;s3"   and   batlehub_k8s_test_definitions(<target>)
# and finds, through the compile definitions (gtest_discover_tests keeps only the first
# ENVIRONMENT entry of a test, so nothing comes through the environment):
#   BATLEHUB_TEST_K8S_DIR              the cluster's directory
#   BATLEHUB_TEST_K8S_KUBECONFIG       <dir>/kubeconfig: admin (client certificate, system:masters),
#                                      https://127.0.0.1:6443; present only once the node is Ready
#   BATLEHUB_TEST_K8S_CONTAINERD_SOCK  <dir>/containerd/containerd.sock: images are pulled there by
#                                      digest from the tests' registry, namespace k8s.io
#                                      (scripts/build-image.py --engine containerd --containerd-address
#                                      <it> --registry <the registry fixture's> --tag
#                                      localhost/<name>:<pid>, and --remove … --tag … afterwards)
#   BATLEHUB_TEST_K8S_KUBECTL, BATLEHUB_TEST_K8S_HELM   the binaries
#   BATLEHUB_TEST_K8S_NODE             "batlehub-node", the one node (pods are scheduled to it)
#   BATLEHUB_TEST_K8S_PEER, BATLEHUB_TEST_K8S_RELAY     scripts/k8s-peer.sh and netns-relay (its storage door): a test
#                                      skips, naming what is missing, only when
#                                      `<peer> missing --relay <relay>` prints something; otherwise
#                                      a cluster that is not there fails it
# The pods' network is a bridge with a gateway on the host (RFC 2544 benchmarking addresses,
# fenced so that nothing leaves the machine) whose NetworkPolicies kube-router enforces. The
# tests' S3 server is reached over it at the cluster's storage door, <gateway>:${BATLEHUB_TEST_S3_PORT}
# (${BATLEHUB_TEST_K8S_DIR}/storage-door names the address; the endpoint the worker signs for): in
# the chart's sandbox namespace a pod reaches nothing but that once kube-router has its rules
# (a pod's first packets precede them: docs/operations/kubernetes.md); in a namespace without
# policies it reaches the host at the gateway. The RuntimeClass gvisor runs
# pods under gVisor where its shim and runsc are installed (`<peer> missing --gvisor` says what
# lacks; those tests skip naming it). Each test makes a namespace of its own
# (bh-<test>-<pid>, labelled pod-security.kubernetes.io/enforce=restricted when it runs the
# sandbox's pods) and deletes it at the end; `k8s.stop` deletes whatever pods remain.
#
# Only in the non-sanitizer tree: the ASan tree's agent is not static, so no sandbox image can
# be built there. The cluster's ports are fixed (6443, 10250, …): one per machine.
if(NOT BATLEHUB_SANITIZE)
  set(BATLEHUB_TEST_K8S_BIN "/opt/batlehub/peers/kubernetes-1.37.2/bin" CACHE PATH
    "kube-apiserver, kube-controller-manager, kube-scheduler, kubelet and kubectl of the tests' cluster (scripts/install-kubernetes.sh)")
  set(BATLEHUB_TEST_HELM_BIN "/opt/batlehub/peers/helm-3.21.4/helm" CACHE FILEPATH
    "The helm binary the tests use (scripts/install-kubernetes.sh)")

  # containerd's sockets live under the directory (…/containerd/containerd.sock.ttrpc must fit
  # a unix socket's 107 bytes): a build tree too deep for that gets a directory under
  # ${TMPDIR}/ named after a hash of the tree's path instead.
  set(_batlehub_k8s_dir "${CMAKE_BINARY_DIR}/k8s-peer")
  string(LENGTH "${_batlehub_k8s_dir}" _len)
  if(_len GREATER 70)
    string(MD5 _hash "${CMAKE_BINARY_DIR}")
    string(SUBSTRING "${_hash}" 0 12 _hash)
    if(DEFINED ENV{TMPDIR} AND NOT "$ENV{TMPDIR}" STREQUAL "")
      set(_batlehub_k8s_dir "$ENV{TMPDIR}/batlehub-k8s-${_hash}")
    else()
      set(_batlehub_k8s_dir "/tmp/batlehub-k8s-${_hash}")
    endif()
  endif()
  set(BATLEHUB_TEST_K8S_DIR "${_batlehub_k8s_dir}")

  function(batlehub_k8s_test_definitions target)
    target_compile_definitions(${target} PRIVATE
      BATLEHUB_TEST_K8S_DIR="${BATLEHUB_TEST_K8S_DIR}"
      BATLEHUB_TEST_K8S_KUBECONFIG="${BATLEHUB_TEST_K8S_DIR}/kubeconfig"
      BATLEHUB_TEST_K8S_CONTAINERD_SOCK="${BATLEHUB_TEST_K8S_DIR}/containerd/containerd.sock"
      BATLEHUB_TEST_K8S_KUBECTL="${BATLEHUB_TEST_K8S_BIN}/kubectl"
      BATLEHUB_TEST_K8S_HELM="${BATLEHUB_TEST_HELM_BIN}"
      BATLEHUB_TEST_K8S_NODE="batlehub-node"
      BATLEHUB_TEST_K8S_PEER="${PROJECT_SOURCE_DIR}/scripts/k8s-peer.sh"
      BATLEHUB_TEST_K8S_RELAY="$<TARGET_FILE:netns-relay>")
    add_dependencies(${target} netns-relay)
  endfunction()

  add_test(NAME k8s.start
    COMMAND ${CMAKE_COMMAND} -E env K8S_BIN=${BATLEHUB_TEST_K8S_BIN}
      ${PROJECT_SOURCE_DIR}/scripts/k8s-peer.sh start ${BATLEHUB_TEST_K8S_DIR}
      --s3-port ${BATLEHUB_TEST_S3_PORT} --relay $<TARGET_FILE:netns-relay>)
  set_tests_properties(k8s.start PROPERTIES FIXTURES_SETUP k8s FIXTURES_REQUIRED s3 TIMEOUT 300)
  # The cluster's pods reach the S3 fixture's server (the storage network), so the server is
  # part of the fixture: a test that requires "k8s" alone has both, in order, for as long as
  # it runs. (gtest_discover_tests cannot pass "k8s;s3": its PROPERTIES split the list.)
  set_tests_properties(storage_s3.start PROPERTIES FIXTURES_SETUP "s3;k8s")
  set_tests_properties(storage_s3.stop PROPERTIES FIXTURES_CLEANUP "s3;k8s")
  add_test(NAME k8s.stop
    COMMAND ${CMAKE_COMMAND} -E env K8S_BIN=${BATLEHUB_TEST_K8S_BIN}
      ${PROJECT_SOURCE_DIR}/scripts/k8s-peer.sh stop ${BATLEHUB_TEST_K8S_DIR})
  set_tests_properties(k8s.stop PROPERTIES FIXTURES_CLEANUP k8s TIMEOUT 120)

  # The chart's NetworkPolicies, enforced: a pod without them reaches the gateway's listener,
  # a sandbox pod with them does not (its storage door still answers), an egressAllowlist entry does.
  add_test(NAME k8s.network_policy
    COMMAND ${CMAKE_COMMAND} -E env K8S_BIN=${BATLEHUB_TEST_K8S_BIN} HELM=${BATLEHUB_TEST_HELM_BIN}
      BATLEHUB_TEST_REGISTRY=127.0.0.1:${BATLEHUB_TEST_REGISTRY_PORT}
      ${CMAKE_CURRENT_SOURCE_DIR}/scripts/k8s_network_policy_test.sh ${PROJECT_SOURCE_DIR} ${BATLEHUB_TEST_K8S_DIR}
      ${BATLEHUB_TEST_S3_PORT} $<TARGET_FILE:batlehub-sandbox> $<TARGET_FILE:hostile> $<TARGET_FILE:netns-relay>)
  set_tests_properties(k8s.network_policy PROPERTIES FIXTURES_REQUIRED "k8s;s3" SKIP_RETURN_CODE 77 TIMEOUT 300)

  # The cluster itself: restricted pods run, reach the S3 server and nothing else.
  add_test(NAME k8s.cluster
    COMMAND ${CMAKE_COMMAND} -E env K8S_BIN=${BATLEHUB_TEST_K8S_BIN}
      BATLEHUB_TEST_REGISTRY=127.0.0.1:${BATLEHUB_TEST_REGISTRY_PORT}
      ${CMAKE_CURRENT_SOURCE_DIR}/scripts/k8s_cluster_test.sh ${PROJECT_SOURCE_DIR} ${BATLEHUB_TEST_K8S_DIR}
      ${BATLEHUB_TEST_S3_PORT} $<TARGET_FILE:batlehub-sandbox> $<TARGET_FILE:hostile> $<TARGET_FILE:netns-relay>)
  set_tests_properties(k8s.cluster PROPERTIES FIXTURES_REQUIRED "k8s;s3" SKIP_RETURN_CODE 77 TIMEOUT 300)

  # The worker's image from the registry: the kubelet pulls it by digest and runs it.
  add_test(NAME k8s.worker_image
    COMMAND ${CMAKE_COMMAND} -E env K8S_BIN=${BATLEHUB_TEST_K8S_BIN}
      BATLEHUB_TEST_REGISTRY=127.0.0.1:${BATLEHUB_TEST_REGISTRY_PORT}
      ${CMAKE_CURRENT_SOURCE_DIR}/scripts/k8s_worker_image_test.sh ${PROJECT_SOURCE_DIR} ${BATLEHUB_TEST_K8S_DIR}
      $<TARGET_FILE:batlehub> $<TARGET_FILE:batlehub-sandbox> $<TARGET_FILE:fake_postmortem> $<TARGET_FILE:netns-relay>
      $<BOOL:${BATLEHUB_AGENT_STATIC}>)
  set_tests_properties(k8s.worker_image PROPERTIES FIXTURES_REQUIRED "k8s;registry" SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
