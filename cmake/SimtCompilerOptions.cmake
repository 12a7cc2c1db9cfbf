# Warning flags for simt's own targets (never for third-party ones).
include_guard(GLOBAL)

function(simt_target_warnings target)
  if(MSVC)
    target_compile_options(${target} PRIVATE /W4)
    if(SIMT_WERROR)
      target_compile_options(${target} PRIVATE /WX)
    endif()
  else()
    target_compile_options(${target} PRIVATE -Wall -Wextra)
    # GCC 12 reports false -Wrestrict errors inside libstdc++'s std::string
    # operator+ at -O2/-O3 (GCC PR 105651, fixed in GCC 13); Debian 12 ships GCC 12.
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
      target_compile_options(${target} PRIVATE -Wno-restrict)
    endif()
    if(SIMT_WERROR)
      target_compile_options(${target} PRIVATE -Werror)
    endif()
  endif()
endfunction()
