# tunectl_module(name [dir]): a static library tunectl_<name> from every .cpp
# in lib/<name> (or dir). Headers are included as "<name>/file.h" from lib/.
function(tunectl_module name)
  if(ARGC GREATER 1)
    set(dir ${ARGV1})
  else()
    set(dir ${CMAKE_SOURCE_DIR}/lib/${name})
  endif()
  file(GLOB sources CONFIGURE_DEPENDS ${dir}/*.cpp)
  add_library(tunectl_${name} STATIC ${sources})
  target_include_directories(tunectl_${name} PUBLIC ${CMAKE_SOURCE_DIR}/lib ${CMAKE_SOURCE_DIR})
  target_compile_options(tunectl_${name} PRIVATE -Wall -Wextra -Wno-unused-parameter)
  set_target_properties(tunectl_${name} PROPERTIES LINKER_LANGUAGE CXX)
endfunction()
