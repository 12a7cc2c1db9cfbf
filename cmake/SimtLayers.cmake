# The layers of src/ (docs/architecture.md, "Layers"): each folder is one static
# library, linked to the layers it may use and to no other. The include check makes the
# same rule hold for headers: a file of a layer that includes another folder's header
# outside its dependencies stops the configure step, naming the file and the line.
include_guard(GLOBAL)

# simt_add_layer(NAME DEPENDS layer... [SOURCES file...])
#   The library simt_NAME from src/NAME/*.cpp (not its subfolders) plus SOURCES, linked
#   PUBLIC to simt_<dep> for each dependency. DEPENDS lists the layer's whole closure
#   (what its files may include), so the table in CMakeLists.txt reads as the rule.
function(simt_add_layer name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "DEPENDS;SOURCES")
  file(GLOB _sources CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/src/${name}/*.cpp")
  add_library(simt_${name} STATIC ${_sources} ${arg_SOURCES})
  target_include_directories(simt_${name} PUBLIC "${PROJECT_SOURCE_DIR}/src")
  target_compile_features(simt_${name} PUBLIC cxx_std_20)
  set_target_properties(simt_${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  foreach(dep IN LISTS arg_DEPENDS)
    target_link_libraries(simt_${name} PUBLIC simt_${dep})
  endforeach()
  simt_target_warnings(simt_${name})
  simt_check_includes(${name} "${arg_DEPENDS}")
endfunction()

# Fails the configure step when a file under src/NAME includes "X/..." for a folder X of
# src/ that is neither NAME nor one of ALLOWED.
function(simt_check_includes name allowed)
  file(GLOB_RECURSE _files "${PROJECT_SOURCE_DIR}/src/${name}/*.h"
       "${PROJECT_SOURCE_DIR}/src/${name}/*.cpp")
  file(GLOB _folders LIST_DIRECTORIES true RELATIVE "${PROJECT_SOURCE_DIR}/src"
       "${PROJECT_SOURCE_DIR}/src/*")
  foreach(file IN LISTS _files)
    file(STRINGS "${file}" _includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"[a-z_]+/")
    foreach(line IN LISTS _includes)
      string(REGEX MATCH "include[ \t]*\"([a-z_]+)/" _ "${line}")
      set(_folder "${CMAKE_MATCH_1}")
      if(_folder STREQUAL name OR NOT _folder IN_LIST _folders)
        continue()
      endif()
      if(NOT _folder IN_LIST allowed)
        file(RELATIVE_PATH _where "${PROJECT_SOURCE_DIR}" "${file}")
        message(FATAL_ERROR "simt layering: ${_where}: '${line}' — src/${name} may include "
                            "only its own headers and those of: ${allowed}")
      endif()
    endforeach()
  endforeach()
endfunction()
