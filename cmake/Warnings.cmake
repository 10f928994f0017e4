add_library(ringsim_warnings INTERFACE)
target_compile_options(ringsim_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow
  -Wno-unused-parameter)
if(RINGSIM_WERROR)
  target_compile_options(ringsim_warnings INTERFACE -Werror)
endif()
