/** The --help text (every flag with its default; the README has the same list). */
export const USAGE = `resil-sim: N replicas of @resil/limit's Limiter against its MemoryStore on a virtual clock

usage: resil-sim [run] [flags]          one scenario: table, summary, chart
       resil-sim sweep --vary P (--values a,b,c | --range from..to[:step]) [flags]

scenario (defaults in brackets)
  -s, --scenario FILE        JSON or YAML scenario; flags override its fields
  -n, --replicas N           replicas at the start [4]
  -l, --limit L              units per window [50]; or a list: 50/s,2000/min
  -w, --window W             second | minute | hour, for a plain --limit [second]
  -a, --algorithm A          fixed | sliding | token [sliding]
      --burst N              token bucket capacity [the limit]
      --load X               offered load, a multiple of the tightest limit [5]
  -d, --duration S           simulated seconds [60]
      --seed N               random seed [1]
      --traffic SHAPE        steady | bursty | diurnal | skewed [steady]
      --skew SHARE           share of traffic on replica 0 [even; 0.8 for skewed]
      --period S             bursty / diurnal period [10 / the whole run]
      --duty F               bursty: fraction of the period that is on [0.25]
      --trough F             diurnal: lowest rate as a fraction of the mean [0.1]
      --cost C               cost per request, or weighted costs 1:0.9,10:0.1 [1]
limiter options
      --sync-interval MS     sync period of a busy key [100]
      --local-allowance A    share of the free budget one grant may split [0.8]
      --cache-ttl MS         trust in a store view; outage tolerance [500]
      --redis-timeout MS     longest wait of a request on a sync [10]
      --lease-ttl MS         life of a reservation in the store [3000]
      --heartbeat MS         heartbeat period [1000]
      --slow-sync MS         sync period of a quiet key [1000]
      --round-timeout MS     deadline of one store round trip [1000]
      --tick MS              background loop tick (not started in the simulation) [20]
      --max-keys N           keys per round trip [512]
      --on-store-unavailable localShare | allow [localShare]
      --last-mile MODE       sync | local [sync]
      --max-concurrent N     also cap concurrency at N slots [none]
      --hold MS              how long an admitted request holds its slot [100]
      --driver D             steps: a sync round on every replica every --sync-every ms, the
                             reference model; loop: each replica's own background loop [steps]
      --sync-every MS        steps driver: sync period in simulated ms [1]
store and faults (times in simulated seconds; repeat a fault flag for more)
      --latency MS           store round-trip latency [0]
      --jitter MS            extra random latency, uniform in [0, MS) [0]
      --outage T1-T2         the store is down from T1 to T2
      --slow T1-T2:MS        the store is MS slower from T1 to T2
      --crash [R@]T          replica R [0] crashes at T (leases and slots leak)
      --join T               a new replica joins at T
output
      --json                 the report as JSON on stdout (instead of the text)
      --svg FILE             write an SVG plot of offered, admitted and limit
      --check                exit 1 when any window went over its limit
      --save-scenario FILE   write the effective scenario as YAML
      --rows N               most table rows [60]
      --progress WHEN        auto (TTY) | always | never [auto]
  -q, --quiet                no speed line, no progress bar
sweep
      --vary P               replicas | load | sync-interval | latency | jitter | local-allowance | skew
      --values a,b,c         the values to try, or
      --range FROM..TO[:STEP]
  -h, --help                 this text

exit codes: 0 ok, 1 --check found a window over the limit, 2 bad arguments or scenario, 3 internal error
`;
