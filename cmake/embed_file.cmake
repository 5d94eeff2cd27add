# Writes a C++ source defining `std::string_view batlehub::agent::tls_roots_pem()` whose
# bytes are the file INPUT. Run as: cmake -DINPUT=… -DOUTPUT=… -P embed_file.cmake
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" len)
math(EXPR bytes "${len} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," body "${hex}")
string(REGEX REPLACE "(('\\\\x[0-9a-f][0-9a-f]',){16})" "\\1\n" body "${body}")
file(WRITE "${OUTPUT}.tmp" "// Generated from ${INPUT} by cmake/embed_file.cmake. Do not edit.\n"
  "#include <string_view>\n#include \"agent/http.h\"\n"
  "namespace batlehub::agent {\nnamespace { constexpr char kRoots[] = {\n${body}\n'\\0'};\n}\n"
  "std::string_view tls_roots_pem() { return std::string_view(kRoots, ${bytes}); }\n}  // namespace batlehub::agent\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
