//! Snapshot tests: the suite tables rendered from fixed stored runs.

use super::fixtures::{job, run};
use crate::jobs::Rw;
use crate::metrics::repeats::summarize_mark;

#[test]
fn mark_grid() {
    let r = run(
        "mark:default",
        vec![
            job("SEQ1M Q8T1", Rw::Read, 1 << 20, 100, Some(400), None),
            job("SEQ1M Q8T1", Rw::Read, 1 << 20, 100, Some(360), None),
            job("SEQ1M Q8T1", Rw::Write, 1 << 20, 0, None, Some(200)),
            job("SEQ1M Q8T1", Rw::Write, 1 << 20, 0, None, Some(210)),
            job("RND4K Q1T1", Rw::RandRead, 4096, 100, Some(5000), None),
            job("RND4K Q1T1", Rw::RandRead, 4096, 100, Some(5100), None),
            job("RND4K Q1T1", Rw::RandWrite, 4096, 0, None, Some(3000)),
            job("RND4K Q1T1", Rw::RandWrite, 4096, 0, None, Some(2900)),
        ],
    );
    let grid = |unit, figure, three| {
        let g = super::mark_grid::Layout {
            unit,
            figure,
            random_in_three_units: three,
            color: false,
            demo: false,
        };
        super::mark_grid::render(&summarize_mark(&r), &g)
    };
    use super::mark_grid::{Figure, MarkUnit};
    let best = grid(MarkUnit::MbPerSec, Figure::Best, false);
    let expected = "\
───────────────────────────────────────────────
 test         Read MB/s    ±   Write MB/s    ± 
───────────────────────────────────────────────
 SEQ1M Q8T1      419.43   5%       220.20   2% 
 RND4K Q1T1       20.89   1%        12.29   2% 
───────────────────────────────────────────────
";
    assert_eq!(best, expected, "\n{best}");
    let mean = grid(MarkUnit::MbPerSec, Figure::Mean, false);
    assert!(mean.contains("398.46") && mean.contains("214.96"), "{mean}");
    let iops = grid(MarkUnit::Iops, Figure::Best, false);
    assert!(iops.contains("Read IOPS") && iops.contains("5100.00"), "{iops}");
    // Peak and Real World: the random test in MB/s, IOPS and µs; the spread once.
    let peak = grid(MarkUnit::GbPerSec, Figure::Best, true);
    let expected = "\
───────────────────────────────────────────────
 test                 Read    ±     Write    ± 
───────────────────────────────────────────────
 SEQ1M Q8T1 MB/s    419.43   5%    220.20   2% 
 RND4K Q1T1 MB/s     20.89   1%     12.29   2% 
 RND4K Q1T1 IOPS   5100.00        3000.00      
 RND4K Q1T1 µs      233.30         233.28      
───────────────────────────────────────────────
";
    assert_eq!(peak, expected, "\n{peak}");
    assert!(!peak.contains("GB/s"), "\n{peak}");
}

#[test]
fn sweep_tables() {
    // Seed section 2's 4 KiB read-only row: 404 IOPS on the SSD.
    let r = run(
        "sweep",
        vec![
            job("bs=4k mix=100/0", Rw::RandRead, 4096, 100, Some(404), None),
            job("bs=64k mix=100/0", Rw::RandRead, 65536, 100, Some(300), None),
            job("bs=4k mix=50/50", Rw::RandRw, 4096, 50, Some(200), Some(190)),
        ],
    );
    let text = super::sweep_table::render(&super::sweep_table::rows(&r));
    let expected = "
100 % read
──────────────────────────────────────────────────────────────────
 block size   IOPS   MiB/s    MB/s   mean latency   runs   spread 
──────────────────────────────────────────────────────────────────
 4k            404   1.578   1.655       232.9 µs      1          
 64k           300    18.8    19.7       233.3 µs      1          
──────────────────────────────────────────────────────────────────

read/write 50/50
──────────────────────────────────────────────────────────────────
 block size   IOPS   MiB/s    MB/s   mean latency   runs   spread 
──────────────────────────────────────────────────────────────────
 4k            390   1.523   1.597       232.6 µs      1          
──────────────────────────────────────────────────────────────────
";
    assert_eq!(text, expected, "\n{text}");
}

#[test]
fn tiobench_table() {
    let r = run(
        "tiobench",
        vec![
            job("Sequential Write", Rw::Write, 4096, 0, None, Some(1000)),
            job("Random Read", Rw::RandRead, 4096, 100, Some(500), None),
        ],
    );
    let text = super::tiobench_table::render(&super::tiobench_table::rows(&r));
    let expected = "\
────────────────────────────────────────────────────────────────────────────────
 test               MiB/s   CPU %   avg ms   max ms     % >2s    % >10s     CPU 
                                                                            eff 
────────────────────────────────────────────────────────────────────────────────
 Sequential Write    3.91   25.00    0.233    0.400   0.00000   0.00000    15.6 
 Random Read         1.95   25.00    0.233    0.400   0.00000   0.00000     7.8 
────────────────────────────────────────────────────────────────────────────────
";
    assert_eq!(text, expected, "\n{text}");
}
