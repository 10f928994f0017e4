# RINGSIM_SANITIZE=address,undefined builds everything with those sanitizers.
if(RINGSIM_SANITIZE)
  add_compile_options(-fsanitize=${RINGSIM_SANITIZE} -fno-omit-frame-pointer
    -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=${RINGSIM_SANITIZE})
endif()

# Every program that links SystemC gets the main-stack announcement at exit (see the
# file's header: without it LeakSanitizer may scan a dead coroutine stack and crash).
if(RINGSIM_SANITIZE MATCHES "address")
  target_sources(ringsim_systemc INTERFACE ${CMAKE_CURRENT_LIST_DIR}/systemc_asan_main_stack.cpp)
endif()
