# cmake -DRINGSIM=... -DSCENARIO=... -DOUT=... -P lead_is_exact.cmake
# A wait skipped by sim_wait (models/common/sim_wait.h) must change nothing: the scenario run
# with skipped waits and with every wait a real one (RINGSIM_NO_LEAD=1), every sleeper in
# SystemC's timed queue (RINGSIM_PARK=0: SystemC's own way), writes the same stats,
# violations, perf.data, timeline, waveforms and series, byte for byte (each run in a
# directory of its own under the same relative names: perf.data records its command line).
# Watching changes nothing either: run with no timeline, waveforms or series (a sampler
# process of its own), the scenario writes the same stats and violations (perf.data differs
# by the command line it records). And parking changes nothing: run with every sleeper parked
# from the first instant on (RINGSIM_PARK=1; sim_wait.h, kParkFrom), where a scenario of few
# CPUs would not park, it writes the same files as with skipped waits (many-cpus.json parks
# from kParkFrom instants on in the skipped-waits run too).
set(outputs stats.json violations.json perf.data timeline.json waves.vcd series.csv)
foreach(mode lead no-lead plain parked)
  set(dir ${OUT}/${mode})
  file(REMOVE_RECURSE ${dir})
  file(MAKE_DIRECTORY ${dir})
  if(mode STREQUAL "no-lead")
    set(env RINGSIM_NO_LEAD=1 RINGSIM_PARK=0)
  elseif(mode STREQUAL "parked")
    set(env RINGSIM_NO_LEAD=0 RINGSIM_PARK=1)
  else()
    set(env RINGSIM_NO_LEAD=0)
  endif()
  set(watch --timeline timeline.json --vcd waves.vcd --series 50us)
  if(mode STREQUAL "plain")
    set(watch)
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${env}
      ${RINGSIM} run ${SCENARIO} --out . --perf-data perf.data ${watch}
    WORKING_DIRECTORY ${dir} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 AND NOT rc EQUAL 1)
    message(FATAL_ERROR "${mode}: ringsim run ${SCENARIO} exited with ${rc}: ${err}")
  endif()
  set(rc_${mode} ${rc})
endforeach()
if(NOT rc_lead EQUAL rc_no-lead OR NOT rc_lead EQUAL rc_plain OR NOT rc_lead EQUAL rc_parked)
  message(FATAL_ERROR "exit ${rc_lead} with skipped waits, ${rc_no-lead} without, "
    "${rc_plain} unwatched, ${rc_parked} parked")
endif()
foreach(other no-lead parked)
  if(other STREQUAL "no-lead")
    set(what "real waits")
  else()
    set(what "every sleeper parked")
  endif()
  foreach(f ${outputs})
    if(NOT EXISTS ${OUT}/${other}/${f})
      continue()
    endif()
    execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT}/lead/${f} ${OUT}/${other}/${f}
      RESULT_VARIABLE differ)
    if(differ)
      execute_process(COMMAND diff ${OUT}/${other}/${f} ${OUT}/lead/${f} OUTPUT_VARIABLE diff)
      string(SUBSTRING "${diff}" 0 3000 diff)
      message(FATAL_ERROR "${f} differs with skipped waits (> lines) from ${what} (<):\n${diff}")
    endif()
  endforeach()
endforeach()
foreach(f stats.json violations.json)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT}/lead/${f} ${OUT}/plain/${f}
    RESULT_VARIABLE differ)
  if(differ)
    execute_process(COMMAND diff ${OUT}/plain/${f} ${OUT}/lead/${f} OUTPUT_VARIABLE diff)
    string(SUBSTRING "${diff}" 0 3000 diff)
    message(FATAL_ERROR "${f} differs when watched (> lines) from unwatched (<):\n${diff}")
  endif()
endforeach()
