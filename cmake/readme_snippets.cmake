# Writes OUTPUT, a C++ translation unit made of every ```cpp block of README (cmake -P, run at
# build time by tests/CMakeLists.txt), so that the README's snippets compile as written. Block k
# becomes the body of gltf_crowd::readme::Snippet<k>::run(), a member of a class deriving from
# readme::Context (tests/readme_snippets_prelude.hpp), which declares the names the snippets use
# without declaring them; its #include lines go to the top. #line points errors at README.md.
# readme::snippets() lists each block's text and a function running it.
cmake_minimum_required(VERSION 3.25)
file(READ "${README}" text)
set(includes "")
set(bodies "")
set(table "")
set(index 0)
set(line 1)
while(TRUE)
  string(FIND "${text}" "```cpp\n" start)
  if(start EQUAL -1)
    break()
  endif()
  math(EXPR start "${start} + 7")
  string(SUBSTRING "${text}" 0 ${start} before)
  string(SUBSTRING "${text}" ${start} -1 text)
  string(REGEX MATCHALL "\n" newlines "${before}")
  list(LENGTH newlines count)
  math(EXPR line "${line} + ${count}")
  string(FIND "${text}" "```" end)
  string(SUBSTRING "${text}" 0 ${end} body)
  math(EXPR index "${index} + 1")
  string(REGEX MATCHALL "#include [^\n]*" found "${body}")
  foreach(include IN LISTS found)
    string(APPEND includes "${include}\n")
  endforeach()
  # An include line stays an empty line, so the body keeps README's line numbers.
  string(REGEX REPLACE "#include [^\n]*" "" code "${body}")
  string(APPEND bodies "struct Snippet${index} : Context {\n  void run();\n};\n"
         "void Snippet${index}::run() {\n#line ${line} \"README.md\"\n${code}}\n\n")
  string(APPEND table "      {R\"readme(${body})readme\", [](Context& c) { Snippet${index}{c}.run(); }},\n")
  string(SUBSTRING "${text}" 0 ${end} consumed)
  string(REGEX MATCHALL "\n" newlines "${consumed}")
  list(LENGTH newlines count)
  math(EXPR line "${line} + ${count}")
  math(EXPR end "${end} + 3")
  string(SUBSTRING "${text}" ${end} -1 text)
endwhile()
if(index EQUAL 0)
  message(FATAL_ERROR "${README} has no ```cpp block")
endif()
file(WRITE "${OUTPUT}.tmp"
     "// Generated from README.md by cmake/readme_snippets.cmake; edit README.md instead.\n"
     "#include \"readme_snippets_prelude.hpp\"\n${includes}\n"
     "// The snippets redeclare the prelude's names and leave some of what they declare unused.\n"
     "#pragma GCC diagnostic ignored \"-Wshadow\"\n"
     "#pragma GCC diagnostic ignored \"-Wunused-variable\"\n"
     "#pragma GCC diagnostic ignored \"-Wunused-but-set-variable\"\n\n"
     "namespace gltf_crowd::readme {\n\n${bodies}"
     "std::span<const ReadmeSnippet> snippets() {\n  static const ReadmeSnippet list[] = {\n${table}  };\n"
     "  return list;\n}\n\n}  // namespace gltf_crowd::readme\n")
# Rewritten only when it changed, so an edit elsewhere in README.md recompiles nothing.
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUTPUT}.tmp" "${OUTPUT}")
file(REMOVE "${OUTPUT}.tmp")
