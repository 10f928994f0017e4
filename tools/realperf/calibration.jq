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
| {pages: $pages, runs: $n,
   rates: ([$r[] | select(.pages == $largest)] | group_by(.period_ns) | map({
     period_ns: .[0].period_ns,
     rate_hz: (map((.samples + .lost) / $seconds) | add / length | round)})),
   seconds_per_wakeup: (if $det > 0 then ([($swy * $sxx - $sxy * $swx) / $det, 0] | max) else 0 end),
   seconds_per_byte: (if $det > 0 then ([($sww * $sxy - $swx * $swy) / $det, 0] | max)
                      elif $sxx > 0 then ([$sxy / $sxx, 0] | max) else 0 end)}
