# Writes OUT (a C++ source defining pfmab::git_commit()) from `git describe`,
# touching it only when the commit changes, so a rebuild after a commit
# records the new one without recompiling anything else.
execute_process(COMMAND git describe --always --dirty --abbrev=12
                WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT commit)
  set(commit unknown)
endif()
set(text "#include \"pfmab/util/version.hpp\"\nconst char* pfmab::git_commit() { return \"${commit}\"; }\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT old STREQUAL text)
  file(WRITE ${OUT} "${text}")
endif()
