# RINGSIM_SANITIZE=address,undefined builds everything with those sanitizers.
if(RINGSIM_SANITIZE)
  add_compile_options(-fsanitize=${RINGSIM_SANITIZE} -fno-omit-frame-pointer
    -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=${RINGSIM_SANITIZE})
endif()

# Every program that links SystemC gets the main-stack announcement at exit (see the
# file's header: without it LeakSanitizer may scan a dead coroutine stack and crash), and
# an munmap that clears the shadow of an unmapped coroutine stack (see its header: without
# it a worker's next SystemC kernel inherits the red zones of the last one's stacks).
if(RINGSIM_SANITIZE MATCHES "address")
  target_sources(ringsim_systemc INTERFACE ${CMAKE_CURRENT_LIST_DIR}/systemc_asan_main_stack.cpp
    ${CMAKE_CURRENT_LIST_DIR}/systemc_asan_stack_unmap.cpp)
endif()
