# kura's messages in English: the default, and the reference every other
# language follows (src/i18n.rs tests that each id is in every language
# with the same variables). Ids are grouped by where they show.
# JSON keys and values never come from here: JSON stays English.

## Lines every page shares (src/report/runs.rs)
warning-prefix = warning:{" "}
incomplete-line = INCOMPLETE: { stopped-early }
stopped-early = the run was stopped early; the numbers cover what ran.
job-stopped-early = INCOMPLETE: stopped early
job-measuring = MEASURING: its totals come when it ends
still-measuring-line = STILL MEASURING: what shows is what the run has stored so far
run-label = {" "}· label "{ $label }"

## The part of a target measured (src/report/span.rs)
span-kind-device = device
span-kind-file = file
span-all-device = all of a { $size } device
span-file = { $size } file
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
mark-spread-note = ± = spread of the passes, (max - min) / mean. MB/s = 10^6 bytes/s.
mark-differences =
    Differs from CrystalDiskMark on purpose: Linux I/O (io_uring or pread/pwrite,
    O_DIRECT) in place of DiskSpd; the preparation pass is a ramp before the first
    pass; the test file is filled with random data, not one repeated 1 MiB block.
mark-every-pass = Every pass with latency percentiles: kura show { $id } --json
mark-run-id = run { $id } ·{" "}
mark-engine = engine { $engine }
