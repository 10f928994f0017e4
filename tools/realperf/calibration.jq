# The calibration of tools/realperf (docs/validation.md), from the runs of the two largest
# buffers alone, where perf loses little or nothing. Input: the runs of measure, one object
# each ({condition, period_ns, pages, samples, lost, woken, perf_data_bytes, perf_cpu_s});
# $seconds: each run's length.
#  - rates: the rate cpu-clock really sampled at per period, from the largest buffer's runs
#    (a late hrtimer skips periods: hrtimer_forward_now);
#  - seconds_per_wakeup, seconds_per_byte: perf's own CPU time per wake-up and per byte of
#    perf.data, least squares of perf_cpu_s = fixed + a * woken + b * bytes (two buffer
#    sizes at one rate tell a from b).
([.[].pages] | unique | .[-2:]) as $pages
| ($pages | max) as $largest
| [.[] | select(.pages as $m | $pages | index([$m]))] as $r
| ($r | length) as $n
| def mean(f): ($r | map(f) | add / $n);
  def sum(f): ($r | map(f) | add);
  mean(.woken) as $mw | mean(.perf_data_bytes) as $mx | mean(.perf_cpu_s) as $my
| sum((.woken - $mw) * (.woken - $mw)) as $sww
| sum((.perf_data_bytes - $mx) * (.perf_data_bytes - $mx)) as $sxx
| sum((.woken - $mw) * (.perf_data_bytes - $mx)) as $swx
| sum((.woken - $mw) * (.perf_cpu_s - $my)) as $swy
| sum((.perf_data_bytes - $mx) * (.perf_cpu_s - $my)) as $sxy
| ($sww * $sxx - $swx * $swx) as $det
| (if $det > 0 then ($swy * $sxx - $sxy * $swx) / $det
   elif $sxx == 0 and $sww > 0 then $swy / $sww else 0 end) as $per_wakeup
| (if $det > 0 then ($sww * $sxy - $swx * $swy) / $det
   elif $sxx > 0 then $sxy / $sxx else 0 end) as $per_byte
| {pages: $pages, runs: $n,
   rates: ([$r[] | select(.pages == $largest)] | group_by(.period_ns) | map({
     period_ns: .[0].period_ns,
     rate_hz: (map((.samples + .lost) / $seconds) | add / length | round)})),
   # A cost cannot be negative: a fit below 0 (noise, or runs that do not tell the two
   # costs apart) is taken as 0, and said so here, for measure and profile to print.
   seconds_per_wakeup: ([$per_wakeup, 0] | max),
   seconds_per_byte: ([$per_byte, 0] | max),
   notes: [
     (if $det > 0 then empty
      elif $sxx > 0 then
        "the wake-ups and the bytes of the runs vary together, so the two costs cannot be told apart: all of perf's CPU time is put on its bytes, the cost per wake-up taken as 0"
      elif $sww > 0 then
        "every run wrote as many bytes, so the two costs cannot be told apart: all of perf's CPU time is put on its wake-ups, the cost per byte taken as 0"
      else
        "every run woke as often and wrote as many bytes: neither cost can be fitted, both are taken as 0" end),
     (if $per_wakeup < 0 then
        "the least-squares cost per wake-up came out at \($per_wakeup * 1e9 | round) ns, below 0: taken as 0" else empty end),
     (if $per_byte < 0 then
        "the least-squares cost per byte came out at \($per_byte * 1e9 * 1000 | round / 1000) ns, below 0: taken as 0" else empty end)]}
