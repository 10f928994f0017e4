# cmake -DRINGSIM=... -DSCENARIO=... -DGOLDEN=... -DOUT=... [-DSETS="--set;k=v"] -P run_and_compare.cmake
execute_process(COMMAND ${RINGSIM} run ${SCENARIO} ${SETS} --out ${OUT}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ringsim run ${SCENARIO} exited with ${rc}\n${out}\n${err}")
endif()
if(NOT EXISTS ${GOLDEN})
  message(FATAL_ERROR "no golden ${GOLDEN}; create it with tools/update-goldens.sh")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT}/stats.json ${GOLDEN}
  RESULT_VARIABLE differ)
if(differ)
  execute_process(COMMAND diff -u ${GOLDEN} ${OUT}/stats.json OUTPUT_VARIABLE diff)
  message(FATAL_ERROR "stats.json differs from ${GOLDEN}:\n${diff}\n"
    "If the change is intended, run tools/update-goldens.sh and review the diff.")
endif()
