# kura's messages in English: the default, and the reference every other
# language follows (src/i18n.rs tests that each id is in every language
# with the same variables). Ids are grouped by where they show.
# JSON keys and values never come from here: JSON stays English.

## Lines every page shares (src/report/runs.rs)
warning-prefix = warning:{" "}
incomplete-line = INCOMPLETE: { stopped-early }
interleaved-line = interleaved: each pass ran in turn with the same pass of run { $runs }
stopped-early = the run was stopped early; the numbers cover what ran.
job-stopped-early = INCOMPLETE: stopped early
job-measuring = MEASURING: its totals come when it ends
still-measuring-line = STILL MEASURING: what shows is what the run has stored so far
run-label = {" "}· label "{ $label }"

## The part of a target measured (src/report/span.rs)
span-kind-device = device
span-kind-file = file
span-kind-directory = directory
span-all-device = all of a { $size } device
span-file = { $size } file
span-directory = { $size }
span-of = of a { $size } { $kind }
span-first = first { $span } { $of }
span-at = { $span } at { $offset } { $of }

## The CrystalDiskMark grid (src/report/mark_grid.rs)
mark-test = test
mark-read = Read
mark-write = Write
mark-mix = Mix
mark-passes = { $passes ->
    [one] one pass
   *[other] { $passes } passes
}
mark-caption-best =
    Shown: the best of { $passes } and the lowest latency, as CrystalDiskMark 9
    (--figure mean: their mean, as KDiskMark's Default profile).
mark-caption-mean =
    Shown: the mean of { $passes }, as KDiskMark's Default profile
    (--figure best: the best and the lowest latency, as CrystalDiskMark 9).
mark-spread-note = ± = half the passes' range, (max - min) / 2 / value. MB/s = 10^6 bytes/s.
mark-short-passes = { $pass } passes, not { $profile } as the profile measures: the grid is not the profile's
mark-differences =
    Differs from CrystalDiskMark on purpose: Linux I/O (io_uring or pread/pwrite,
    O_DIRECT) in place of DiskSpd; the preparation pass is a ramp before the first
    pass; the test file is filled with random data, not one repeated 1 MiB block.
mark-every-pass = Every pass with latency percentiles: kura show { $id } --json
mark-run-id = run { $id } ·{" "}
mark-engine = engine { $engine }

## Warnings (src/metrics/warning.rs): what happened and what to do
warning-io-uring-unavailable = io_uring is not available here ({ $why }); using the sync engine. Containers often block io_uring: allow it (seccomp) to measure with a deep queue
warning-buffered-on-sync-engine = { $job }: buffered I/O runs on the sync engine (pread/pwrite, what applications calling write() see), one I/O in flight per thread; qd { $qd } ran as qd 1 (--engine io_uring queues buffered I/O, which the kernel hands to worker threads)
warning-sync-engine-queue-depth = { $job }: the sync engine keeps one I/O in flight per thread; qd { $qd } ran as qd 1 (use --engine io_uring, or more --threads, for more I/O in flight)
warning-page-cache-holds-data = buffered I/O on { $data_mb } MB of test data while the machine has { $memory_mb } MB of RAM: the page cache can hold it all, so the numbers may measure memory, not the device (use --direct, or a test file larger than RAM)
warning-keep-cache-with-direct = keep_cache has no effect with direct I/O (O_DIRECT bypasses the page cache); use --buffered --keep-cache to measure from the cache
warning-memory-file-system = { $path } is on { $fs_type }, which keeps files in memory: the numbers measure RAM, not a storage device (put the test file on the device's file system)
warning-memory-file-system-direct = { $path } is on { $fs_type }, which keeps files in memory: O_DIRECT was requested and the file system accepted it, but there is no device below it; the numbers measure RAM, not a storage device (put the test file on the device's file system)
warning-sparse-file = { $path } is sparse: it has { $allocated_mb } MB of storage for { $data_mb } MB of data; reads of the holes return zeros from memory without reading the device (write it in full first, or let kura create a new test file)
warning-sparse-file-loop = { $dev } is a loop device over { $path }: { $path } is sparse: the loop device's backing file has { $allocated_mb } MB of storage for { $data_mb } MB of data; reads of the holes return zeros from memory without reading the device (write it in full first, or let kura create a new test file)
warning-loop-over-memory = { $path } is a loop device over { $backing } on { $fs_type }: the numbers measure RAM, not a storage device (back the loop device with a file on a disk)
warning-memory-block-device = { $path } is { $device }, a block device kept in RAM (zram or brd): the numbers measure memory, not a storage device (name a disk)
warning-compressed-fill = fill { $fill } on { $path }, { $fs_type } mounted with { $option }: the written pattern compresses away, so the device moves far fewer bytes than the numbers say; use --fill random
warning-host-write-back-cache = { $path } ({ $size_mb } MB) was written by this run onto { $disk }, a virtual disk with a write-back cache, and is smaller than this machine's RAM: the host's cache may serve its reads faster than the device can (use a file larger than the host's cache, or one written long before)
warning-worker-stopped = { $job }: a worker stopped early: { $error }; the job's figures cover only the workers that ran to the end
warning-io-errors = { $job }: { $count } { $direction } errors; first: { $first_error } at offset { $offset_bytes }. The figures count only I/O that succeeded: check the device (dmesg) and the job before trusting them
warning-short-transfers = { $job }: { $count } short { $direction }s; the rest of each was resubmitted and the I/O counted once, as fio does
warning-stalled = { $job }: the I/Os stalled ({ $reasons }): the figures are not the device's steady rate; look for other load on the device or a throttle, and run again
warning-repeats-disagree = { $test }{ $dir }: the { $runs } runs disagree by { $spread_pct } % (from { $min } to { $max } { $unit }); the device is not steady, consider more runs or a longer runtime
warning-passes-disagree = { $test }{ $dir }: the { $runs } passes disagree by { $spread_pct } % (from { $min } to { $max } { $unit }); the device is not steady, consider more passes or a longer runtime
warning-curve-point-skipped = { $job }: curve point { $pct }% of { $max_iops } I/O per second is below { $min_iops }; skipped, as vdbench does
warning-test-file-not-removed = could not remove test file: { $error }; remove it by hand
warning-stopped-after-failure = stopped after a failed job: { $error }; the jobs before it are stored, fix the failure and run again for the rest
warning-run-unfinished = the run did not finish: kura stopped before storing its end (killed, crashed, or still running); { $finished_jobs ->
    [one] { $finished_jobs } finished job was stored
   *[other] { $finished_jobs } finished jobs were stored
}
warning-job-unfinished = { $job }: was measuring when kura stopped; { $periods ->
    [one] { $periods } period of its series is stored, no totals
   *[other] { $periods } periods of its series are stored, no totals
}
warning-series-coarsened = { $job }: its series holds { $periods } periods of { $period }, not of the interval { $interval }: a job keeps at most { $max } periods so that its memory stays bounded, and merged neighbouring periods (rates and means over both, the higher p99); give --interval { $period } or a shorter runtime to keep every period
warning-stored-job-unreadable = stored job { $index } of this run cannot be read: { $error }
warning-job-file = job file: { $note }
warning-fio-flag = fio flag: { $note }
warning-steady-stop-attained = { $job }: steady by { $rule } after { $secs } s of measuring; the job ended there (fio's steady-state stop)
warning-steady-stop-not-attained = { $job }: not steady by { $rule } before the job's end; its figures are of the whole run
warning-page-cache-holds-data-under-limit = buffered I/O on { $data_mb } MB of test data under a memory limit of { $limit_mb } MB: the page cache can still hold it all, so the numbers may measure memory, not the device (lower --mem-limit below the data, or use a larger test file)
warning-verify-passed = { $job }: verify checked { $blocks ->
    [one] { $blocks } block
   *[other] { $blocks } blocks
} and every one held what was written
warning-verify-failed = { $job }: verify found { $count ->
    [one] { $count } bad block
   *[other] { $count } bad blocks
} of { $blocks } checked: the data read back is not what was written.{" "}
warning-verify-failed-more = ; and { $more } more (all offsets are in the JSON)
warning-verify-mismatch = offset { $offset_bytes }: { $field } expected { $expected }, found { $found }
warning-verify-incomplete = { $job }: the verify read-back stopped: { $error }; blocks after it were not checked
warning-verify-checked-nothing = { $job }: verify checked no block: nothing it read was a block this job wrote or its journal lists, so nothing is known about the data (exit 1)
warning-journal-not-written = { $job }: the verify journal could not be updated after a flush ({ $error }); it lists less than was flushed, so a verify with it checks less
warning-max-errors-reached = { $job }: stopped after { $errors } errors (max_errors { $max }); what was measured until then is kept
warning-reads-of-zeros = { $path }: { $zero_blocks } of { $sampled } blocks sampled across the span read as zeros (never written, trimmed, or written as zeros): thin-provisioned, compressing and deduplicating storage, and SSDs for unmapped blocks, return such reads without reading media, so the numbers may be far better than the device's (write the span with random data first)
warning-compressible-data = fill { $fill } on { $path }: data this compressible is stored cheaply by devices and volumes that compress or deduplicate (SSD controllers, ZFS, VDO, thin volumes, storage arrays), so writes may look faster than they are; use --fill random
warning-unreachable-cache = { $path } is on { $fs_type }, { $why }: the numbers may come from that cache, not the storage (measure on the server, or with a data set larger than its memory)
warning-in-container = kura runs in a container ({ $runtime }): buffered I/O shares the host's page cache with everything else on it, the container's memory limit sizes what it can cache, and caches below its storage (overlay layers, volumes) are out of reach; use --direct, or --mem-limit to fix the cache's size
warning-above-interface = { $job }: { $mb_per_s } MB/s on { $path }, but { $device }'s link ({ $interface } carries at most { $limit_mb_per_s } MB/s) cannot move that much: the data came from a cache (page cache, or the device's own), not through the link
warning-writes-ahead-of-device = { $job }: its writes to { $path } ran at { $mb_per_s } MB/s, but making them durable took { $flush_s } s more after the job: { $durable_mb_per_s } MB/s counting that flush. A write-back cache took them faster than the device writes (the host's, under a virtual disk; the page cache, for buffered writes): write more than the cache holds, or use --end-fsync so the flush is measured
warning-reads-not-on-device = { $job }: reads: { $read } by kura, { $reached } reached { $device }: served from the page cache, not the device. For the device's speed read more than memory holds, or use --direct or --mem-limit
warning-reads-not-on-device-under = { $job }: reads: { $read } by kura, { $reached } reached { $device } (under { $holders }): served from a cache above it (the page cache; under a loop device, the host's cache of its backing file), not the device. For the device's speed read more than memory holds, use --mem-limit, or give a loop device --direct-io=on
warning-host-write-back-writes = direct writes to { $path } went to { $disk }, a virtual disk whose host caches writes, and left nothing for a flush after the job to write: the host took them into its memory and answered the flush at once (or its device is as fast as the job; the guest cannot tell which), so write rates may be the host's memory, and passes that disagree its cache filling and draining. For the device's rate, write more than the host can cache (a longer runtime or a larger size)
warning-file-ops-skipped = { $job }: { $count ->
    [one] { $count } operation
   *[other] { $count } operations
} found no file in the state they need (a delete with every file gone, a create with none): the mix ran with fewer of them than asked; give the set more files
warning-measuring = still measuring (kura process { $pid }): what shows is what the run has stored so far, its series a period at a time; the totals of the job measuring now come when it ends
warning-database-in-memory = the database directory held at most { $data_mb } MB between tests and the machine has { $memory_mb } MB of RAM: its SELECTs were answered from memory, while its commits (fsync) reached the storage; a --scale or --table-size larger than RAM makes the reads reach it too
warning-short-span-on-rotational = { $path } is a rotational disk measured on { $span_mb } MB of its { $device_mb } MB: seeks this short make random I/O faster than on the whole disk (give --size to measure more of it)
warning-below-min-rate = { $job }: thread { $thread } stopped: { $what } (fio's rate_min/rate_iops_min fail the job); lower the minimum or find what slowed the device

## compare's guidance (src/report/compare/guidance.rs)
class-sequential-large = sequential-heavy (large sequential blocks)
class-random-small-qd1 = little I/O (small random blocks, queue depth 1)
class-random-small-deep = random-heavy (small random blocks, deep queue)
class-mixed = mixed read/write
class-all = all rows
metric-mbps = MB/s
metric-iops = IOPS
metric-mbps-or-ops = MB/s, ops/s for operations that move no bytes
metric-lat-mean = mean latency
metric-lat-p99 = p99 latency
guidance-not-measured = { $title }: no comparable rows measured on both { $tn } and { $bn }.
guidance-one-row = 1 row
guidance-rows = { $n } rows, { $lo }x to { $hi }x
guidance-rows-overlapping = { $rows }; { $unit ->
        [runs] runs
       *[passes] passes
    } overlap in { $n }
guidance-within-noise = { $title }: the runs cannot tell { $tn } from { $bn }: in every row their { $unit ->
        [runs] runs
       *[passes] passes
    } overlap and the rank test finds no difference ({ $rows })
guidance-same = { $title }: { $tn } and { $bn } do not differ by more than { $pct } % in { $by } ({ $g }x; { $rows })
guidance-mixed = { $title }: neither is faster throughout: { $tn } is faster in { $better } row(s), { $bn } in { $worse } (by { $by }; geometric mean { $g }x; { $rows })
guidance-better = { $title }: { $tn } is { $g }x faster than { $bn } by { $by } ({ $rows })
guidance-worse = { $title }: { $bn } is { $g }x faster than { $tn } by { $by } ({ $rows })
guidance-per-throughput = the { $by } per { $cur }/month
guidance-per-performance = the performance (by { $by }) per { $cur }/month
guidance-same-value = they cost about the same per performance
guidance-cheaper = { $who } is cheaper per performance
guidance-price = ; at { $p }x the price of { $bn }, { $tn } gives { $v }x { $per }: { $who }
guidance-end = .
guidance-pick = {" "}Pick { $who } for this work.
guidance-pick-faster-cheaper = {" "}Pick { $who }: faster, and cheaper per performance.
guidance-pick-faster-dearer = {" "}Pick { $who } for speed; { $other } gives more per money.
guidance-pick-by-direction = {" "}No single pick: { $reads } where reads dominate, { $writes } where writes do.
guidance-pick-none = {" "}No single pick: choose by the rows above that match your workload.
guidance-pick-cheaper = {" "}Either will do; { $who } costs less per performance.
guidance-pick-either = {" "}Either will do.
guidance-too-few = { $title }: { $fast } measured { $g }x faster than { $slow } by { $by }, but { $have } { $unit ->
        [runs] { $have ->
            [one] run
           *[other] runs
        }
       *[passes] { $have ->
            [one] pass
           *[other] passes
        }
    } a side cannot tell them apart at the 5 % level; { $need } would ({ $rows })
guidance-unranked = { $title }: { $fast } measured { $g }x faster than { $slow } by { $by } ({ $rows }), not ranked: { $why }
guidance-flagged = { $who }'s runs are flagged ({ $why })
guidance-same-target = { $tn } and { $bn } are the same target ({ $what })
same-target-device = the same block device { $dev }, { $volume }
same-target-file-system = the same file system on device { $dev }, { $volume }
pick-line = { $title }: { $sentence }
pick-cheapest = {" "}Pick { $who }: none of { $list } was shown faster than another, and { $who } costs least.
pick-too-few = {" "}No pick yet: { $have } { $unit ->
        [runs] { $have ->
            [one] run
           *[other] runs
        }
       *[passes] { $have ->
            [one] pass
           *[other] passes
        }
    } a side cannot tell { $list } apart; { $need } would.
pick-either = {" "}No pick: the runs do not tell { $list } apart; either will do.
pick-same-target = {" "}No pick: { $list } are the same target.
pick-circle = {" "}No pick: { $list } each beat another; choose by the rows above that match your workload.
pick-all-flagged = {" "}No pick: every target's runs are flagged.
pick-alone = {" "}No pick: only { $who }'s runs are not flagged, with nothing to set them against.
pick-left-out = {" "}Left out: { $list }.
pick-not-interleaved = (The runs did not take turns: a drift of the machine meanwhile would read as a difference; `kura mark A B --runs 5` takes turns.)
pick-void-memory = its data was in memory
pick-void-writes-ahead = its writes went ahead of the device
pick-void-stalled = it stalled
pick-void-stopped = it stopped early
pick-void-errors = it had I/O errors
pick-void-short = it measured too short a time

## compare's table (src/report/compare/render.rs)
compare-by-test = test
compare-by-bs = block size
compare-by-mix = mix
compare-higher-is-better = higher is better
compare-lower-is-better = lower is better
compare-headline = kura compare · { $metric } ({ $better }){ $figure } · baseline { $baseline } · rows by { $by }
compare-target = target
compare-run-ids = run ids
compare-path = path
compare-host = host
compare-price = price
compare-per-month = per month
compare-price-ratio = price ratio
compare-baseline-name = { $name } (baseline)
compare-not-comparable = not comparable: { $why }
compare-not-comparable-ref = not comparable [{ $n }]
compare-noise = { $ratio }x (overlap)
compare-nothing-completed = no operation completed
compare-row-in-ops = { $label } (ops/s)
compare-legend-ratios = Ratios are target / { $baseline } of { $metric }; { $better }.
compare-legend-interleaved = runs interleaved: { $targets } took turns, { $passes ->
    [one] 1 pass each
   *[other] { $passes } passes each
}; pass i of each ran beside pass i of the others, so drift fell on all alike
compare-legend-repetitions = Values are the { $figure } (repetitions: a mark run's passes, or the runs of one label with --repeats); ± is half their range.
compare-legend-runs = Values are the { $figure }: the runs of one label, taken with --repeats, are repetitions of one measurement.
compare-legend-spread = ± is half their range.
compare-legend-passes = Values are the { $figure } of each test.
compare-legend-rank-test = { $unit ->
        [runs] Runs
       *[passes] Passes
    } are set against the baseline's by the two-sided Mann-Whitney U test at { $pct } % (exact for small samples): "(overlap)" marks a ratio whose { $unit ->
        [runs] runs
       *[passes] passes
    } overlap with no difference found. With 3 { $unit ->
        [runs] runs
       *[passes] passes
    } a side the test cannot go below p = 0.1: there, an unmarked ratio means every { $unit ->
        [runs] run
       *[passes] pass
    } of one side beat every { $unit ->
        [runs] run
       *[passes] pass
    } of the other.
compare-legend-rank-test-marked = { $unit ->
        [runs] Runs
       *[passes] Passes
    } are set against the baseline's by the two-sided Mann-Whitney U test at { $pct } % (exact for small samples): "~" marks a ratio whose { $unit ->
        [runs] runs
       *[passes] passes
    } overlap with no difference found. With 3 { $unit ->
        [runs] runs
       *[passes] passes
    } a side the test cannot go below p = 0.1: there, an unmarked ratio means every { $unit ->
        [runs] run
       *[passes] pass
    } of one side beat every { $unit ->
        [runs] run
       *[passes] pass
    } of the other.
compare-figure-best = best pass
compare-figure-mean = mean of passes
compare-figure-best-run = best run
compare-figure-mean-runs = mean of runs
compare-test-file = test file { $size }
compare-legend-mbps = MB/s = 10^6 bytes/s.
compare-legend-prices = Per-price figures are per currency unit per month; the per-price ratio is the performance ratio divided by the price ratio.
compare-no-rows = no measured rows
compare-guidance = Guidance, from the measured rows above:

## Column headings and table titles (src/i18n.rs `heading`): English is the
## text the code gives; a heading with no `col-` message shows as it is (units).
col-id = id
col-run = run
col-runs = Runs
col-label = label
col-date = date
col-date-utc = date (UTC)
col-suite = suite
col-host = host
col-hosts = Hosts
col-hostname = hostname
col-jobs = jobs
col-job = job
col-price = price
col-status = status
col-targets = Targets
col-target = target
col-path = path
col-kind = kind
col-device = device
col-model = model
col-rotational = rotational
col-size = size
col-block = block
col-block-size = block size
col-created-by-kura = created by kura
col-engine = engine
col-kernel = kernel
col-cores = cores
col-memory = memory
col-results-per-job-and-direction = Results per job and direction
col-compared-targets = Compared targets
col-test = test
col-workload = workload
col-direction = direction
col-ops = ops
col-errors = errors
col-lat-min = lat min
col-lat-mean = lat mean
col-mean = mean
col-mean-latency = mean latency
col-stddev = stddev
col-max = max
col-percentile = percentile
col-figure = figure
col-spread = spread
col-operation = operation
col-share = share
col-step = step
col-phase = phase
col-offered = offered
col-offered-iops = offered IOPS
col-achieved-iops = achieved IOPS
col-bound = bound
col-rank = rank
col-start-skew = start skew
col-stop-skew = stop skew
col-score = score
col-relative = relative
col-note = note
col-lower-bound = lower bound
col-ratio = ratio
col-repetitions = repetitions
col-threads = threads
col-per-month = per month
col-price-ratio = price ratio

## The HTML report (src/report/html/)
html-made-by = Made by kura { $version } on { $date }. MB/s = 10^6 bytes/s, MiB/s = 2^20 bytes/s; latency from submission to completion of each I/O.
html-title-runs = kura · { $count } runs: { $names }
html-summary = Summary
html-banner-errors = { $name }: { $errors } I/O errors; see the jobs below for errno and offsets.
html-no-warnings = No warnings.
html-warnings = Warnings
html-comparison = Comparison
html-guidance = Guidance, from the measured rows
html-jobs = Jobs
html-latency-bound = Latency-bounded capacity
html-sweep = Block-size sweep
html-suite-tables = Suite tables
html-db = Database (sql-bench, sysbench oltp_read_write)
html-compare-note = As kura compare puts them: baseline { $baseline }; rows matched by suite test, else by identical workload; values are a mark run's best pass (CrystalDiskMark's figure) when every run is a mark run, else the mean of the repetitions.
html-compare-chart = Each run's { $metric } over { $baseline }'s, per row; above 1 is faster. Rows whose parameters differ have no bar.
html-mark-size = { $size } test file
html-mark-chart = { $dir } throughput per test, best of { $runs } runs, one colour per target.
html-mark-table = CrystalDiskMark, { $size }: best MB/s
html-mark-table-dir = CrystalDiskMark, { $size }, { $dir }: best MB/s
html-latency-over-time = Latency over time · { $title }
html-latency-over-time-caption = Mean and 99th percentile latency of the I/Os completed in each period, reads and writes together.
html-latency-percentiles = Latency percentiles · { $title }
html-latency-percentiles-caption = Latency at each percentile up to p99.999, from the stored HDR histogram (within 0.1 %); p50, p99, p99.9 and p99.999 written.
html-latency-histogram = Latency histogram · { $title }
html-latency-histogram-caption = Share of I/Os by latency, { $bins } bins per decade, from the stored HDR histogram.
html-iops-caption = I/Os completed per second in each { $period } period.
html-percentiles-table = { $title }: latency percentiles

## A run's terminal report (src/report/run_table.rs)
target-file = file
target-directory = directory
target-block-device = block device
target-on = on { $dev }
target-rotational = rotational
target-non-rotational = non-rotational
device-target = device { $devices }
device-under = ; under it { $devices }
device-counts = { $device }: read { $read }, wrote { $written }, busy { $busy }
device-amplification = {" "}({ $ratio }x kura's)
device-per-op = {" "}({ $bytes } an operation)
device-by-test = devices (what the kernel counted):
bonnie-test-put-char = Sequential Output Per Chr
bonnie-test-put-block = Sequential Output Block
bonnie-test-rewrite = Sequential Output Rewrite
bonnie-test-get-char = Sequential Input Per Chr
bonnie-test-get-block = Sequential Input Block
bonnie-test-seeks = Random Seeks
bonnie-test-seq-create = Sequential Create
bonnie-test-seq-stat = Sequential Stat
bonnie-test-seq-delete = Sequential Delete
bonnie-test-rand-create = Random Create
bonnie-test-rand-stat = Random Stat
bonnie-test-rand-delete = Random Delete
job-on = {"  "}on{" "}
job-measured = engine { $engine }, measured { $elapsed } s{ $ramp }, CPU user { $user } s, system { $system } s{ $syncs }
job-ramp = {" "}after { $ramp } s ramp
job-in-flight = , { $n } I/Os besides syncs in flight on average
direction-latency = { $direction } latency
facts-host = host { $host }
facts-price = price { $price }
facts-suite = suite { $suite }
run-id = run { $id }
run-not-stored = run (not stored)
html-ratio-chart = { $metric } relative to { $baseline }
html-ratio-axis = ratio to baseline (×)
html-ratio-metric-with-ops = { $metric } (ops/s for the rows marked so)
html-relative-to = { $unit }, relative to { $baseline }
html-noise = { $ratio }× (overlap)
compare-rows-not-comparable = { $count } row(s) are not comparable: their workload parameters differ (named in the row); no ratio is given for them
compare-no-shared-row = no row was measured on two of the targets: their runs share no workload (runs of different suites are compared one suite at a time)
# Words in cells, looked up as headings are (`heading`): shown translated, downloaded as they are.
col-row = row
col-measuring = measuring
col-incomplete = incomplete
col-complete = complete
col-file = file
col-block-device = block device
col-directory = directory
col-yes = yes
col-no = no

## history and sweep (src/report/history.rs, sweep_table.rs)
history-best-of = best of { $n }
history-one-run = one run
history-together = { $n } runs together
history-short-queries = { $test } queries
history-vdbench-average = average line
history-search-score = { $job }: latency-bound score, { $bound }
history-search-lower-bound = ; a lower bound: the bound held even unthrottled
history-search-none-held = { $job }: no load held the bound ({ $bound })
# The figure in a few words, for one line a run (history, the web UI's list).
history-short-read-write = read+write
history-short-block-read = block read
history-short-seq-read = seq read
history-short-all = { $test } all ops
history-short-search = { $job } at { $stat } < { $limit }
history-short-search-lower = { $job } at { $stat } < { $limit } unthrottled
history-short-search-none = { $job }: none at { $stat } < { $limit }
history-incomplete-star = *: { job-stopped-early }; the figure covers what ran
history-short-read = read
history-short-write = write
## tables wider than the terminal (src/report/fit.rs)
fit-dropped = { $columns }: left out to fit { $width } columns (--wide shows them)
fit-more = {" "}and { $n } more
fit-cut = …: cut to fit { $width } columns (--wide shows the whole text)
sweep-all-read = 100 % read
sweep-all-write = 100 % write
sweep-mix = read/write { $mix }
sweep-note =
    IOPS and throughput are reads and writes together, mean of the runs;
    MiB/s = 2^20 bytes/s.
sweep-random = random
sweep-sequential = sequential
sweep-on = on { $path }
col-read = read
col-write = write
col-trim = trim
col-total = total
col-mix = mix

## Latency-bounded searches (src/report/latency_table.rs, html/latency.rs)
search-title = { $title }: latency-bounded search, { $bound }
search-unthrottled = unthrottled
search-best = { $verdict } (best)
search-short-note = short: the step delivered less than { $pct } % of the rate it offered (beyond what the count of a step that carried it may lack), so that load was not carried.
search-short-cap = At { $shape } the job keeps at most { $inflight } operations in flight: at the { $latency } mean latency of its highest short step that completes about { $max } IOPS at most (Little's law). To offer more, raise { $raise }.
search-lower-bound = The score is a lower bound: no load the search offered crossed the limit.
search-lower-bound-hint = The score is a lower bound: no load the search offered crossed the limit. To find where latency does cross it, let the job keep more operations in flight: raise { $raise }.
search-held-target = At { $shape } up to { $inflight } of { $cap } operations were in flight and they waited at the target: the mean latency was { $growth }x the least loaded step's, while kura's threads used { $cpu } % of a core each{ $device }. The target was the limit: more load only queues longer at it, so the score is the most it delivers under the bound, not a lower bound.
search-held-cpu = kura's threads used { $cpu } % of a core each while { $inflight } of { $cap } operations were in flight at most: the client's CPU, not the target, held the load. Free cores (look at the machine's load) or drive the target from more clients.
search-held-unknown = Neither kura's CPU ({ $cpu } % of a core per thread) nor the job's queue ({ $inflight } of { $cap } operations in flight at most) was full{ $device }: kura cannot tell what held the load (another process on the client or the target, or the target itself).
search-device-busy = ; the device was busy { $pct } % of the step
search-device-idle = ; the device was busy only { $pct } % of the step, so they waited above it (a throttle such as a cgroup's, or a layer over the device)
search-shape-block = qd { $qd } x { $threads } threads
search-raise-qd-threads = qd or threads
search-raise-sync = threads, or qd with engine io_uring and direct I/O (the sync engine keeps one I/O in flight per thread)
search-raise-threads = threads (a thread of this kind does one operation at a time)
search-raise-ceiling-qd = the job's qd, the ceiling of this search
search-raise-ceiling-threads = the job's threads, the ceiling of this search
search-best-step = The step that held at the highest load:
search-capacity-title = Latency-bounded capacity · { $bound } · relative to { $baseline }
html-latency-curve-caption = One point per measured step, by the load it offered; the dashed line is the limit. A step held when its statistic stayed at or under the limit and it delivered at least 95 % of the rate it offered.
col-held = held
col-crossed = crossed
col-short = short

## What a long run's series showed (src/metrics/changes.rs, steady.rs)
change-figure-iops = IOPS
change-figure-mean-latency = mean latency
change-stopped = { $figure } stopped at { $when }, from { $before } to 0
change-resumed = { $figure } resumed at { $when }, from 0 to { $after }
change-rose = { $figure } rose { $size } at { $when }, from { $before } to { $after }
change-fell = { $figure } fell { $size } at { $when }, from { $before } to { $after }
change-changed-again = { $what }, for { $periods } periods, then changed again
change-stayed = { $what }, and stayed: { $why }
change-why-iops-fell = burst credits running out, throttling, or the device's cache filling?
change-why-iops-rose = a cache or tier warming up, or other load on the device ending?
change-why-latency-rose = with IOPS steady: a rate cap holding while the device slowed?
change-why-latency-fell = with IOPS steady: the device got faster under a rate cap
change-unsteady = { $figure } moved between levels { $steps } times by more than { $shift } % over { $periods } periods: no one step explains the run, the { $told } largest are told; a longer interval (--interval) smooths what is only noise
change-drift-up = { $figure } drifted up { $pct } % over { $over } (from { $from } to { $to } on a straight-line fit), with no single step: the device filling, wearing or collecting garbage, or load from elsewhere growing?
change-drift-down = { $figure } drifted down { $pct } % over { $over } (from { $from } to { $to } on a straight-line fit), with no single step: the device filling, wearing or collecting garbage, or load from elsewhere growing?
change-spikes = p99 latency exceeded { $factor }x its median ({ $median }) in { $count } of { $periods } periods ({ $share } %), first at { $first }, worst { $worst } at { $worst_at }
change-marker-rose = rose { $size }
change-marker-fell = fell { $size }
change-marker-worst-p99 = worst p99
steady-reached = steady state (SNIA PTS 2.0.2) after round { $last }: over rounds { $first }-{ $last } { $unit } averaged { $average }, ranged { $range } % of that (limit 20 %), and its fitted line moved { $slope } % (limit 10 %)
steady-not-reached = not steady after { $rounds } rounds (SNIA PTS 2.0.2's rule): over rounds { $first }-{ $last } { $unit } ranged { $range } % of its average (limit 20 %) and its fitted line moved { $slope } % (limit 10 %); the figures are not the device's steady state
steady-too-few = stopped after { $rounds } round(s), before the 5 that steady state is judged on
steady-chart-title = Rounds until steady · { $job }
steady-window = steady window
steady-last-window = last window (not steady)
steady-round = round

## A latency-bounded search's result (src/metrics/latency_bound.rs, src/report/latency_table.rs)
search-never-crossed = { $stat } latency stayed under { $limit } even unthrottled: >= { $iops } IOPS ({ $latency } { $stat }); the limit was never crossed, so this is a lower bound
search-highest = highest { $what } holding { $stat } latency under { $limit }: { $load }
search-highest-lower-bound = highest { $what } holding { $stat } latency under { $limit }: { $load }, a lower bound: no step crossed the limit
search-highest-target = highest { $what } holding { $stat } latency under { $limit }: { $load }, the most the target delivered: more load only queued at it
search-never-crossed-target = { $stat } latency stayed under { $limit } even unthrottled: { $iops } IOPS ({ $latency } { $stat }), the most the target delivered: more load only queues at it
search-rate-delivered = { $iops } IOPS delivered ({ $offered } offered)
search-none-held = no { $what } tried held { $stat } latency under { $limit }
search-load-rate = rate
search-load-qd = queue depth
search-load-threads = thread count
search-threads-iops = { $threads } threads ({ $iops } IOPS)
search-threads = { $threads } threads
search-bound-rate = { $stat } latency under { $limit }, raising the offered rate
search-bound-qd = { $stat } latency under { $limit }, raising the queue depth
search-bound-threads = { $stat } latency under { $limit }, raising the thread count
search-steps-table = { $name }: steps of the search ({ $bound })
search-line-steps = { $name } ({ $steps } steps)
search-line-limit = limit { $limit }
col-probe = probe
col-climb = climb
col-descend = descend
col-refine = refine
search-chart-title = { $name }: { $stat } latency by offered load
search-axis-qd = queue depth per thread
search-axis-latency = { $stat } latency (log scale)
search-none-held-cell = none held

## tiobench (src/report/tiobench_table.rs, runs.rs)
io-buffered = buffered
tiobench-setup = { $threads } threads x { $size } file, { $bs } blocks, { $io }, engine { $engine }
tiobench-runs-note = Each test ran { $runs } times; a row is all of its runs together.
tiobench-differences =
    Differs from tiotest on purpose: --file-size is per thread (tiotest -f;
    tiobench.pl's --size is the total); new files are pre-filled with random
    data (tiotest ftruncates them).
col-sequential-write = Sequential Write
col-sequential-read = Sequential Read
col-random-write = Random Write
col-random-read = Random Read
col-avg-ms = avg ms
col-max-ms = max ms
col-avg-lat-ms = avg lat ms
col-max-lat-ms = max lat ms
col-cpu-eff = CPU eff
tiobench-cpu-eff-short = CPU eff
suite-mem-limit = memory capped at { $limit } (--mem-limit)

## bonnie++'s report (src/report/bonnie_table.rs): the lines keep bonnie++'s
## columns, so each heading line has the display width of the English one
## (a test checks).
bonnie-io-groups = ------Sequential Output------ --Sequential Input- --Random-
bonnie-io-tests = -Per Chr- --Block-- -Rewrite- -Per Chr- --Block-- --Seeks--
bonnie-file-groups = ------Sequential Create------ --------Random Create--------
bonnie-file-tests = -Create-- --Read--- -Delete-- -Create-- --Read--- -Delete--
bonnie-name-size = Name:Size etc
bonnie-files = files
bonnie-latency = Latency
bonnie-mean = mean
bonnie-too-short =
    +++++: the test took less than 0.5 s, too short for bonnie++ to report;
    --json has kura's measured rate.
bonnie-mean-note = mean: all runs' work over their total time; its latency is the worst of all runs.
bonnie-file = { $size } file
bonnie-small-files = { $count } small files
list-separator = {", "}

## vdbench's summary (src/report/vdbench_summary.rs): its column headings are vdbench's own
vdbench-title = vdbench-style report
vdbench-note = (resp in milliseconds; queue depth = rate x resp; cpu% is kura's threads as a share of all cores)
vdbench-note-narrow = (resp in milliseconds; queue depth = rate x resp; cpu% is kura's threads as a share of all cores; resp max, resp stddev and cpu% sys with --wide)

## kura suite db (src/report/db_table.rs, html/db.rs): the test names are sql-bench's and sysbench's own
dbrun-differences =
    Seconds per test as sql-bench's total; counts are sql-bench's times --scale,
    in each database's dialect (docs/db.md says what differs). The commit
    columns are where the storage shows (every write outside a transaction is
    a commit); SELECTs are mostly answered from cache.
dbrun-stopped-early = * stopped early: the seconds cover what ran
dbrun-oltp-shape = oltp_read_write: { $tables ->
    [one] { $tables } table
   *[other] { $tables } tables
} x { $rows } rows, { $threads ->
    [one] { $threads } thread
   *[other] { $threads } threads
}, { $seconds } s
dbrun-oltp-transactions = transactions: { $transactions } ({ $tps } per sec.)   queries: { $qps } per sec.
dbrun-oltp-latency = latency: min { $min }  avg { $avg }  max { $max }
dbrun-oltp-percentiles = 95th percentile { $p95 }  99th percentile { $p99 }
dbrun-server-in = { $server } in { $place }
dbrun-runs-differ = note: the runs differ in { $setting } ({ $values })
dbrun-compare-legend =
    xNAME = NAME / { $base }, the baseline.
    Lower is better for s and p95 ms, higher for tps.
col-seconds = seconds
col-queries-s = queries/s
col-commits = commits
col-commit-p50 = commit p50
col-commit-p99 = commit p99
col-select-p50 = select p50
col-unit = unit
html-db-chart = Seconds per test (lower is faster)
html-db-chart-caption = Seconds per test, as sql-bench reports them; one colour per run.
col-seconds-per-test-and-the-99th-percentile-of-commits = Seconds per test, and the 99th percentile of commits
col-oltp-mix-sysbench-oltp-read-write = OLTP mix (sysbench oltp_read_write)
col-tables-x-rows = tables x rows
col-transactions-s = transactions/s

## kura explain (src/report/explain.rs): fio's option names (rw, bs, qd) stay as they are
explain-file = { $file }: { $format } file, { $jobs } job(s)
explain-cannot-run = cannot run: { $why }
explain-note = note:{" "}
explain-ios = { $count } I/Os
explain-passes = { $passes ->
    [one] { $passes } pass
   *[other] { $passes } passes
}
explain-or = { $amount } or { $runtime }
explain-default-runtime = 10s (default)
explain-rate-searched = searched
explain-rate-of-max = { $pct }% of max
explain-rate-max = max
explain-seek = {" "}({ $pct }% seek)
explain-read-pct = read%
explain-target = target: { $target }
col-group = group
col-offset = offset
col-stop = stop
col-ramp = ramp
col-rate = rate
col-direct = direct

## The progress display on stderr (src/runner/progress.rs)
progress-writing = writing
progress-left = { $time } left
progress-now = now { $iops } IOPS { $mbps } MB/s
progress-last-min = last min { $iops } IOPS { $mbps } MB/s
progress-done = done: { $iops } IOPS { $mbps } MB/s (the job's result)
progress-preparing = { $job }: preparing { $path }
progress-preparing-file-set = { $job }: preparing the file set in { $path }
progress-round = { $job }: round { $round } (until { $tracked } is steady)
progress-together = running at the same time: { $jobs }
progress-latency-step = { $job }: latency step { $step } ({ $phase }): { $load }

## Charts and names of the HTML report (src/report/html/mod.rs, suites.rs)
html-run-unstored = run #{ $n }
html-axis-mbps = MB/s (10^6 bytes/s)
html-axis-mibps = MiB/s (2^20 bytes/s)
html-sweep-mix = { $mix } read/write
html-sweep-chart = { $what } by block size, { $mix }
html-sweep-caption = { $what } against block size, one line per target; read and write added, repetitions averaged.
html-sweep-table = Sweep, { $mix }
html-sweep-axis = block size (bytes, log scale)
html-axis-time-of-day = time of day (UTC)
html-axis-time = time from start of measurement ({ $unit })
html-band-ramp = ramp (not measured)
html-band-measure = measure
html-line-write-iops = write IOPS
html-line-read-iops = read IOPS
html-iops-over-time = IOPS over time · { $title }
html-axis-percentile = percentile (%), log scale of 1 - p
html-axis-latency = latency (log scale)
html-axis-share = share of I/Os (%)
html-axis-latency-unit = latency ({ $unit })
# bonnie++'s test names, as rows of compare and the HTML report
col-sequential-output-per-chr = Sequential Output Per Chr
col-sequential-output-block = Sequential Output Block
col-sequential-output-rewrite = Sequential Output Rewrite
col-sequential-input-per-chr = Sequential Input Per Chr
col-sequential-input-block = Sequential Input Block
col-random-seeks = Random Seeks
col-sequential-create = Sequential Create
col-sequential-stat = Sequential Stat
col-sequential-delete = Sequential Delete
col-random-create = Random Create
col-random-stat = Random Stat
col-random-delete = Random Delete
col-create = create
col-delete = delete
warning-bonnie-file-cached = the { $size_mb } MiB test file fits in the { $memory_mb } MiB of RAM kura may use: the page cache can hold it, so the I/O numbers will measure memory, not the device (bonnie++ uses twice the RAM)
compare-run-stopped-early = { $name }: run { $id } was stopped early; its numbers cover only what ran

## Lines on stderr (src/commands/)
note-prefix = kura: note:{" "}
note-separator = {"; "}
note-testing-in-directory = testing in directory { $dir }: test file { $file }
note-smaller-than-default-size = { $path } is { $size }, smaller than the default --size { $default }: measuring all of it
output-replacing = kura: replacing { $path }
output-wrote = kura: wrote { $path }
output-wrote-report = kura: wrote { $path } ({ $runs ->
    [one] { $runs } run
   *[other] { $runs } runs
}, { $kib } KiB)

## The most common errors (src/main.rs, store/, targets/file.rs, commands/compare.rs);
## the others stay English (docs/i18n.md)
error-prefix = error:{" "}
error-no-database = no database at { $path } (check --db; a verb that stores a run creates it)
error-no-run = no run matches '{ $spec }' (see `kura history`)
error-ambiguous-run = '{ $spec }' matches { $count } runs ({ $ids }); give a run id, or add --latest
error-ambiguous-run-repeats = '{ $spec }' matches { $count } runs ({ $ids }); give a run id, add --latest for the newest, or --repeats to take them all as repetitions of one target
error-compare-named-twice = run { $id } is named twice ('{ $spec }' and an earlier argument): compare distinct runs
error-compare-baseline-not-compared = --baseline '{ $spec }' (run { $id }) is not one of the compared runs
error-compare-two-runs = give at least two runs to compare (ids, labels or `latest`)
error-no-directory = directory { $dir } does not exist
error-file-locked = another process holds a lock on it (another kura run?); two runs on one file measure each other's I/O and store it twice: wait for it to end
error-file-locked-pid = another process (pid { $pid }) holds a lock on it (another kura run?); two runs on one file measure each other's I/O and store it twice: wait for it to end

## Why a compare row is not comparable (src/report/compare/rows.rs, capacity.rs);
## a diff- noun is looked up by its English text (i18n::phrase), names have none
diff-none = none
diff-both = { $a } vs { $b }
diff-param = { $noun } { $a } vs { $b }
diff-null-engine = null engine (no I/O)
diff-real-io = real I/O
diff-target = { $name }: { $why }
diffword-direct = direct
diffword-buffered = buffered
diff-access = access
diff-block-size = block size
diff-read-share = read share
diff-queue-depth = queue depth
diff-threads = threads
diff-test-size = test size
diff-distribution = distribution
diff-gap = gap
diff-mix = mix
diff-depth = depth
diff-width = width
diff-files-per-directory = files per directory
diff-file-size = file size
diff-memory-limit = memory limit
diff-synchronous-writes = synchronous writes
diff-server = server
diff-scale = scale
diff-server-sync = server sync
diff-tables = tables
diff-table-size = table size
col-p99-latency = p99 latency
capacity-short-bound = { $stat } under { $limit }, by { $load }
capacity-no-search = no latency-bounded search in this run
capacity-other-bound = bound { $bound } (baseline: { $baseline })
capacity-heading = Latency-bounded capacity · { $bound } · relative to { $baseline }
capacity-none-held = none held
capacity-note = Score: the highest load that held the bound, in IOPS (runs averaged); relative: score / the baseline's. Scores are set side by side only when limit, statistic and load agree.
capacity-lower-bound = lower bound
capacity-lower-bound-note = ">=": a lower bound: that search never crossed the limit, so the target carries at least that much. A ratio whose target's score is a lower bound is a lower bound itself (">="); one whose baseline's score is, an upper bound ("<="); with both, unknown ("?").
capacity-conclusion-at-least = { $target } carries at least { $ratio }x the load of { $baseline } with { $bound }: its score is a lower bound, its search never crossed the limit.
capacity-conclusion-at-most = { $target } carries at most { $ratio }x the load of { $baseline } with { $bound }: the baseline's score is a lower bound, its search never crossed the limit.
capacity-conclusion-unknown = Neither { $target } nor { $baseline } crossed the limit: both scores are lower bounds, so { $ratio }x says neither which carries more nor by how much.
compare-per-price-heading = { $name } { $unit } per { $currency }/month
compare-per-price-ratio-heading = { $name }/{ $baseline } per { $currency } (price { $ratio }x)
compare-guidance-markdown = Guidance
compare-markdown-warning = warning
compare-name-with-runs = { $name } (run { $ids })
compare-prices-differ = { $name }: its runs carry different prices ({ $first } and { $other }); the first is used
compare-no-price = { $name } has no price, so it has no price-performance; give one with `kura label RUN --price "AMOUNT CUR/month"`
compare-currencies-differ = prices are in different currencies ({ $currencies }): kura does not convert currencies, so price ratios are given only against a baseline in the same currency

## What bonnie++'s and `suite db`'s steps do, for the progress line
## (src/bonnie/measure.rs, src/database/mod.rs)
step-repetition = {" "}(run { $repetition } of { $runs })
bonnie-step-put-char = writing { $size } one byte per write call
bonnie-step-put-block = writing { $size } in { $block } blocks
bonnie-step-rewrite = rewriting { $size }
bonnie-step-get-char = reading { $size } one byte per read call
bonnie-step-get-block = reading { $size } in { $block } blocks
bonnie-step-seeks = { $seeks } seeks by { $seekers } seekers
bonnie-step-files = { $files } files
dbrun-step-atis = airline tables: create, load row by row, joins and groups
dbrun-step-alter-table = add and drop columns and indexes one ALTER at a time
dbrun-step-big-tables = a table with 1000 columns: select and insert whole rows
dbrun-step-connect = connect and disconnect, simple selects, a 65000-byte blob
dbrun-step-create = create, count and drop many tables; create+drop in a loop
dbrun-step-insert = insert 3 x N rows one commit each, selects, updates, deletes
dbrun-step-select = selects on keys of many parts: ranges, min/max, groups
dbrun-step-wisconsin = the Wisconsin benchmark's tables and queries
dbrun-step-oltp-read-write = sysbench's oltp_read_write transactions

## The IO500-like suite's page (src/report/runs.rs, io500_table.rs); phase
## names and IO500's [SCORE] line stay as IO500 prints them
io500-title = IO500-like (not the official harness) · { $ranks ->
    [one] { $ranks } rank
   *[other] { $ranks } ranks
}, stonewall { $stonewall }
io500-not-run = not run
io500-like-mark = (IO500-like)
io500-stonewall = stonewall: { $phase } { $at } at the deadline (per rank { $min } to { $max }), { $ops } after wear-out
io500-before-stonewall = ended before the stonewall, their files done (IO500 marks such a phase INVALID; give larger sizes): { $phases }
io500-differences =
    IO500-like (not the official harness). Differs on purpose: find is not run
    (not in the metadata mean); each mdtest family runs its phases back to back
    in one job (create, stat, [read,] delete), not between the ior phases, on
    each rank's own files (mdtest -N 1 takes a neighbour's); files have fixed
    sizes (--easy-size, --hard-segments), pre-filled when made, and a write
    phase ends at the stonewall or at the end of its file.
col-value = value
col-time-s = time s
col-operations = operations
warning-database-under-mem-limit = the database directory held at most { $data_mb } MB and --mem-limit let kura and the server keep { $limit_mb } MB in memory: its SELECTs may have been answered from memory; a --mem-limit below the data makes the reads reach the storage
warning-oltp-retried = { $job }: { $count } transactions met a deadlock or a duplicate key, were rolled back and run again (sysbench's "ignored errors"); they are not counted
warning-scattered-cache = { $job }: its { $files } files held { $pages } cached pages in { $runs } separate places as it started (left by the jobs before it, whose cache the run keeps, as tiobench does; a memory cap evicts the rest); readahead reads around each, so the device gets reads no larger than the gaps between them, { $gap_kib } KiB on average, instead of up to { $readahead_kib } KiB. On a disk limited in IOPS the sequential read then runs at that limit times the gaps, not at its bandwidth; fio's default (invalidate=1) starts from an empty cache, and --direct bypasses it
warning-too-short = { $count ->
        [one] { $jobs } was measured
       *[other] { $count } jobs were measured
    } under { $min } s{ $count ->
        [one] {""}
       *[other] {" "}({ $jobs })
    }, the shortest { $measured } s: too short to trust a rate (a burst that a device or a throttle allows, a cache's first fill and the timer weigh in; bonnie++ prints +++++ for such a test); give a longer --runtime or more operations
warning-and-more = {" "}and { $count } more
warning-latency-tail = { $job }: { $direction } p99 latency { $p99 } is { $ratio }x its mean { $mean } (over { $limit }x): some operations waited far longer than queueing explains, e.g. stalls at a throttle's or the device's limit

## Runs of many ranks: the hosts' table (src/report/cluster_hosts.rs, compare/hosts.rs)
hosts-title = { $ranks } ranks on { $hosts ->
    [one] { $hosts } host
   *[other] { $hosts } hosts
}, every job of the run together:
hosts-jobs = { $jobs } jobs
hosts-spread = spread: the slowest host { $slowest } ran { $ratio }x the fastest's rate per rank ({ $fastest }); it ran the slowest rank in { $count } of { $jobs } jobs
compare-hosts-title = Per host (runs of many ranks), every job together
compare-hosts-markdown-title = Per host (runs of many ranks)
col-ranks = ranks
col-ops-s-per-rank = ops/s per rank
col-vs-fastest = vs fastest
col-slowest-in = slowest in
html-compare-prices-left-out = Prices left out of the comparison: { $why }
html-compare-no-shared-row = No row of the baseline was measured by another run.
section-random = random
section-sequential = sequential
section-read = read
section-write = write
section-read-pct = { $pct } % read
section-buffered = {" "}buffered
history-incomplete = {" "}(incomplete)
history-unreadable = unreadable: { $why }
history-none-stored = no runs stored yet: try `kura mark` or `kura run`
history-none-matched = no runs match { $filter }; { $total ->
    [one] { $total } run is
   *[other] { $total } runs are
} stored: { $suites }
# seed 4: targets run several times (compare/repeats_view.rs)
compare-volume-on = { $fs } on { $device }
compare-run-n = run { $n }
compare-repeats-heading = { $row } · { $metric } of each run, and their { $figure } · ratio to { $baseline }
col-size-plan = size/plan
col-resp-time = resp time
col-best = best
html-target-runs = { $name } ({ $count } runs)
# seed 5: bonnie++ across targets (compare/suite_view.rs)
compare-bonnie-heading = bonnie++ · each target's rate in bonnie++'s unit and its worst latency · rate relative to { $baseline }
compare-bonnie-short = *: the test took less than 0.5 s, too short for bonnie++ to report (it prints +++++); kura's measured rate is shown.
compare-bonnie-names = Tests by bonnie++'s own names (its CSV's): putc, put_block, rewrite = Sequential Output Per Chr, Block, Rewrite; getc, get_block = Sequential Input Per Chr, Block; seeks = Random Seeks; seq_create, seq_stat, seq_del and ran_create, ran_stat, ran_del = Sequential and Random Create, Stat, Delete.
col-latency = latency
col-thr = thr
col-identifier = identifier
compare-bonnie-legend = Rates are in bonnie++'s unit (K/sec: KiB per second; /sec: seeks or files per second), latency is the slowest single operation, as bonnie++ prints them; xNAME = NAME's rate / { $baseline }'s, higher is better.
html-tiobench-compare = tiobench, as tiobench.pl prints its tables: one per test, a row per target and thread count
html-db-ratio-chart = Each test relative to { $baseline }
html-db-ratio-caption = Each run's seconds per sql-bench test, and the OLTP mix's transactions per second and p95, over the baseline's: for seconds and p95 below 1 is faster, for tps above 1.
html-db-compare = Seconds per test and the OLTP mix, relative to { $baseline }
html-scores-chart = Latency-bounded score relative to { $baseline }

# kura suite pts (docs/pts.md)
warning-pts-purge = { $test }: purged by { $method } (BLKDISCARD over the whole device); NVMe format/sanitize and ATA secure erase are not run by kura yet
warning-pts-purge-span = { $test }: purged by { $method } (BLKDISCARD over the first { $span } of the device, the span --size set; the rest of the device was not purged); NVMe format/sanitize and ATA secure erase are not run by kura yet
warning-pts-no-purge = { $test }: not purged: the target is a regular file, and no purge can reach the flash under a file; the PTS requires one
warning-pts-not-conforming = NOT CONFORMING to SNIA PTS 2.0.2: --scale { $scale } shrank round time and volumes; for a quick look only
warning-pts-write-cache = { $device }: the volatile write cache is on ({ $state }); PTS-E asks for it off (WCD), PTS-C on (WCE): this run is PTS-C's in that respect. kura does not change it: `hdparm -W 0` (ATA) or `nvme set-feature -f 6 -v 0` (NVMe) turns it off
pts-purged = purged ({ $method })
pts-not-purged = not purged
pts-steady = steady, window rounds { $first }-{ $last } of { $rounds }
pts-not-steady = NOT steady after { $rounds } rounds
pts-ws-intervals = { $intervals } intervals
# The HTML report's PTS pages (src/report/html/pts.rs)
html-pts = SNIA PTS 2.0.2: steady state and results per test
html-pts-no-tests = No PTS test of this run ran in rounds or wrote its saturation curve.
html-pts-not-conforming = NOT CONFORMING
html-pts-tracked = { $point } (tracked)
html-pts-convergence = Steady-state convergence · { $test }
html-pts-convergence-caption = { $verdict }. Lines: the tracked variable ({ $unit }) by round of the point steady state is judged on (tracked) and of the other points of its R/W mix (TP: both directions); shaded: the measurement window.
html-pts-window = Steady-state measurement window · { $test }
html-pts-average = average { $average }
html-pts-fit = least-squares line
html-pts-holds = both hold: steady
html-pts-fails = not both hold: not steady
html-pts-window-caption = Rounds { $first }-{ $last } of the tracked point in { $unit }, their average ({ $average }) with ±10 % and ±20 % of it shaded, and the least-squares line. The PTS's rule: the values' range within 20 % of the average (here { $range } %) and the line's rise or fall across the window within 10 % ({ $slope } %); { $verdict }.
html-pts-iops-table = { $test }: IOPS, measurement window's average (block size by R/W mix)
html-pts-iops-chart = { $test }: IOPS by block size, one line per R/W mix
html-pts-iops-caption = Each point's IOPS averaged over the measurement window's rounds; both axes logarithmic.
html-pts-tp-table = { $test }: throughput, measurement window's average
html-pts-tp-chart = TP: MB/s by block size and direction
html-pts-tp-caption = Sequential reads and writes at each block size, averaged over each TP test's measurement window (each block size is a test of its own, purged and preconditioned).
html-pts-lat-table = { $test }: latency, measurement window's average
html-pts-lat-chart = { $test }: mean and maximum latency per point
html-pts-lat-caption = Mean latency (reads and writes weighted by their I/Os) and the largest latency in the measurement window's rounds, per block size and R/W mix; log scale.
html-pts-ws-table = { $test }: the write-saturation job as a whole (4 KiB random writes)
html-pts-ws-no-series = WS: no interval series was recorded, so there is no curve.
html-pts-ws-time = WS: IOPS over time
html-pts-ws-time-caption = 4 KiB random writes: the I/Os completed per second in each { $period } period of the write-saturation job.
html-pts-ws-written = WS: IOPS over data written
html-pts-ws-written-caption = The same { $period } periods against the total written by the middle of each (MB = 10^6 bytes).
html-axis-log = { $unit } (log scale)
html-axis-written = written ({ $unit })

## Runs of many ranks: the lines under the ranks' table (src/report/cluster_table.rs)
ranks-on-hosts = { $ranks } ranks on { $hosts ->
    [one] { $hosts } host
   *[other] { $hosts } hosts
}, { $placed }
ranks-share-file = each on its share of one shared file
ranks-own-file = each on its own file (PATH.RANK)
ranks-share-set = each on its share of one file set's files
ranks-own-set = each on its own file set (ANCHOR/kura-rank-RANK)
ranks-spread = spread: fastest rank { $ratio }x the slowest (rank { $rank } on { $host }); total p99 is of all ranks' I/Os pooled
ranks-first-last = first done at { $first_s } s: { $first_iops } IOPS, { $first_mbs } MB/s · last done at { $last_s } s: { $last_iops } IOPS, { $last_mbs } MB/s
ranks-stonewall = stonewall { $deadline_s } s: ops per rank at the deadline min { $min } max { $max }; { $iops } IOPS, { $mbs } MB/s at the deadline · after wear-out every rank did { $max } ops: { $last_iops } IOPS, { $last_mbs } MB/s
