# cmake -DRINGSIM=... -DSCENARIO=... -DOUT=... -P run_twice.cmake
foreach(i 1 2)
  execute_process(COMMAND ${RINGSIM} run ${SCENARIO} --out ${OUT}/${i}
    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "run ${i} of ${SCENARIO} exited with ${rc}: ${err}")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT}/1/stats.json ${OUT}/2/stats.json
  RESULT_VARIABLE differ)
if(differ)
  execute_process(COMMAND diff -u ${OUT}/1/stats.json ${OUT}/2/stats.json OUTPUT_VARIABLE diff)
  message(FATAL_ERROR "two runs of ${SCENARIO} with the same seed differ:\n${diff}")
endif()
