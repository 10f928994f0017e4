# RINGSIM_SANITIZE=address,undefined builds everything with those sanitizers.
if(RINGSIM_SANITIZE)
  add_compile_options(-fsanitize=${RINGSIM_SANITIZE} -fno-omit-frame-pointer
    -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=${RINGSIM_SANITIZE})
endif()
