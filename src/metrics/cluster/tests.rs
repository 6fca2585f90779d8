use std::time::Duration;

use proptest::prelude::*;

use super::*;
use crate::jobs::Job;
use crate::metrics::collect::{DirCollector, IntervalSample, KEEP_INTERVAL_HISTOGRAMS, SeriesBuilder};
use crate::metrics::histogram::{PERCENTILES, percentile_key, record};
use crate::metrics::{TargetFacts, TargetKind};

const SECOND: u64 = 1_000_000_000;

/// One rank's job: reads with the given latencies, spread evenly over
/// `elapsed_ns`, with a series of one-second periods carrying histograms.
fn rank_job(rank: u32, start_unix_ns: u64, elapsed_ns: u64, latencies: &[u64]) -> RankJob {
    KEEP_INTERVAL_HISTOGRAMS.store(true, std::sync::atomic::Ordering::Relaxed);
    let mut read = DirCollector::default();
    let mut series = SeriesBuilder::default();
    let periods = elapsed_ns.div_ceil(SECOND).max(1);
    // One sample per period, as a worker thread sends them.
    let mut samples: Vec<IntervalSample> = (0..periods)
        .map(|index| IntervalSample {
            thread: 0,
            index,
            read_ops: 0,
            write_ops: 0,
            bytes: 0,
            hist: new_histogram(),
            read_lat_ns: 0,
            write_lat_ns: 0,
            cpu_user_ns: 1,
            cpu_system_ns: 1,
            dir_hists: None,
        })
        .collect();
    for (i, lat) in latencies.iter().enumerate() {
        read.success(4096, *lat);
        let s = &mut samples[(i as u64 * periods / latencies.len() as u64) as usize];
        s.read_ops += 1;
        s.bytes += 4096;
        s.read_lat_ns += *lat;
        record(&mut s.hist, *lat);
    }
    for s in &samples {
        series.add(s);
    }
    let job = Job {
        interval: Duration::from_secs(1),
        ..Job::default()
    };
    let result = JobResult {
        job,
        test: None,
        target: TargetFacts {
            path: format!("/mnt/nas/kura.dat.{rank}"),
            kind: TargetKind::File,
            fs_type: None,
            device: None,
            device_model: None,
            rotational: None,
            size_bytes: 1 << 20,
            logical_block_bytes: 512,
            created: true,
            identity: None,
        },
        engine: "sync".into(),
        measure_start_unix_ms: start_unix_ns / 1_000_000,
        elapsed_ns,
        ramp_ns: 0,
        read: Some(read.result(elapsed_ns)),
        write: None,
        operations: Default::default(),
        syncs: 0,
        cpu_user_ns: 10,
        cpu_system_ns: 20,
        series: series.build(SECOND, elapsed_ns),
        incomplete: false,
        cluster: None,
        device_io: None,
    };
    RankJob {
        rank,
        host: HostFacts {
            hostname: format!("node{rank}"),
            kernel: "6.1".into(),
            ..HostFacts::default()
        },
        start_unix_ns,
        result,
        ops_at_deadline: None,
        bytes_at_deadline: None,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// What merging promises: the merged p99 (every percentile) is the p99 of
    /// all ranks' I/Os pooled into one histogram, not an average of p99s.
    #[test]
    fn merged_percentiles_are_the_pooled_ones(
        ranks in proptest::collection::vec(
            proptest::collection::vec(1_000u64..50_000_000, 1..400), 1..6)
    ) {
        let parts: Vec<RankJob> = ranks
            .iter()
            .enumerate()
            .map(|(r, lats)| rank_job(r as u32, 1_000 * SECOND + r as u64 * 1_000_000, 3 * SECOND, lats))
            .collect();
        let merged = merge(&parts, false, None).unwrap();
        let mut pooled = new_histogram();
        let mut all: Vec<u64> = Vec::new();
        for lats in &ranks {
            for l in lats {
                record(&mut pooled, *l);
                all.push(*l);
            }
        }
        let read = merged.read.as_ref().unwrap();
        prop_assert_eq!(read.ops, all.len() as u64);
        for p in PERCENTILES {
            let got = read.lat_ns.percentiles[&percentile_key(p)];
            prop_assert_eq!(got, pooled.value_at_quantile(p / 100.0), "p{}", p);
        }
        // And against an exact sort of the pooled values, within HDR's bound.
        all.sort_unstable();
        let rank = ((0.99 * all.len() as f64).ceil() as usize).max(1);
        let exact = all[rank - 1];
        let p99 = read.lat_ns.percentiles[&percentile_key(99.0)];
        prop_assert!(p99.abs_diff(exact) <= exact / 1000 + 1, "p99 {} exact {}", p99, exact);
        // Each period's p99 is the p99 of that period's I/Os on every rank:
        // the ranks start 0-5 ms apart, so each rank's period k meets the
        // others' in the shared period k.
        let ops: u64 = merged.series.iter().map(|p| p.read_ops).sum();
        prop_assert_eq!(ops, all.len() as u64);
        for (k, point) in merged.series.iter().enumerate().take(3) {
            let mut period = new_histogram();
            for lats in &ranks {
                for (i, l) in lats.iter().enumerate() {
                    if i * 3 / lats.len() == k {
                        record(&mut period, *l);
                    }
                }
            }
            prop_assert_eq!(point.read_ops, period.len(), "period {}", k);
            if !period.is_empty() {
                prop_assert_eq!(point.lat_p99_ns, period.value_at_quantile(0.99), "period {}", k);
            }
        }
    }
}

#[test]
fn a_slow_rank_moves_the_p99_where_an_average_would_hide_it() {
    let fast = vec![100_000; 990];
    let slow = vec![9_000_000; 30];
    let parts = vec![
        rank_job(0, 1_000 * SECOND, 2 * SECOND, &fast),
        rank_job(1, 1_000 * SECOND, 2 * SECOND, &fast),
        rank_job(2, 1_000 * SECOND, 2 * SECOND, &slow),
    ];
    let merged = merge(&parts, false, None).unwrap();
    let p99 = merged.read.unwrap().lat_ns.percentiles[&percentile_key(99.0)];
    // 30 of 2010 I/Os (1.5 %) are slow: the pooled p99 is a slow one.
    assert!(p99 >= 8_990_000, "{p99}");
    let ranks = &merged.cluster.unwrap().ranks;
    assert_eq!(ranks[0].lat_p99_ns / 1000, 100);
    assert!(ranks[2].lat_p99_ns >= 8_990_000);
}

/// A file set's mix on 4 ranks: 990 reads at 20 ms and 10 creates at
/// 56 ms each per rank. Every rank's p99 (all kinds pooled) is a read's;
/// the total must be too, not the creates' own p99, which the table once
/// showed as "total" (56 ms above ranks of 20 ms).
#[test]
fn the_total_p99_pools_every_kind_as_each_ranks_does() {
    let parts: Vec<RankJob> = (0..4)
        .map(|r| {
            let mut p = rank_job(r, 1_000 * SECOND, 2 * SECOND, &[20_000_000; 990]);
            let mut creates = DirCollector::default();
            for _ in 0..10 {
                creates.success(0, 56_000_000);
            }
            p.result
                .operations
                .insert(OpKind::Create, creates.result(2 * SECOND));
            p
        })
        .collect();
    let merged = merge(&parts, false, None).unwrap();
    let creates_p99 = merged.operations[&OpKind::Create].lat_ns.percentiles[&percentile_key(99.0)];
    assert!(creates_p99 >= 55_900_000, "{creates_p99}");
    let total = pooled_p99_ns(&merged).unwrap();
    assert_eq!(total / 100_000, 200, "{total}: a read's 20 ms");
    for rank in &merged.cluster.as_ref().unwrap().ranks {
        assert_eq!(rank.lat_p99_ns, total, "rank {}", rank.rank);
    }
}

#[test]
fn series_meet_on_the_shared_clock_and_skews_are_kept() {
    // Rank 1 starts 300 ms after rank 0 and ends 300 ms after it.
    let parts = vec![
        rank_job(0, 1_000 * SECOND, 3 * SECOND, &[1_000; 30]),
        rank_job(1, 1_000 * SECOND + 300_000_000, 3 * SECOND, &[4_000; 30]),
    ];
    let merged = merge(&parts, true, None).unwrap();
    assert_eq!(merged.elapsed_ns, 3_300_000_000);
    let s = &merged.series;
    // Rank 1's periods (midpoints 0.8 s, 1.8 s, 2.8 s) fall in periods 0, 1, 2.
    assert_eq!(s.len(), 3);
    assert!(s.iter().all(|p| p.read_ops == 20), "{s:?}");
    // Exact merged period p99: half the I/Os took 1 µs, half 4 µs.
    assert_eq!(s[0].lat_p99_ns / 10, 4_000 / 10);
    assert!((s[0].lat_mean_ns - 2_500.0).abs() < 5.0);
    assert!(
        s.iter().all(|p| p.histogram.is_empty()),
        "period histograms are not stored"
    );
    let c = merged.cluster.unwrap();
    assert!(c.shared);
    assert_eq!(c.ranks[1].start_skew_ns, 300_000_000);
    assert_eq!(c.ranks[1].stop_skew_ns, 300_000_000);
    assert_eq!(c.ranks[0].stop_skew_ns, 0);
    assert_eq!(c.ranks[1].host, "node1");
    assert_eq!(c.ranks[1].target, "/mnt/nas/kura.dat.1");
    assert_eq!(c.last_done.ops, 60);
    // When rank 0 finished (3.0 s), rank 1 had done 2.7 s of its 3 s.
    assert_eq!(c.first_done.elapsed_ns, 3 * SECOND);
    assert_eq!(c.first_done.ops, 30 + 27);
    assert_eq!(merged.cpu_user_ns, 20);
}

#[test]
fn totals_are_summed_and_rates_use_the_whole_window() {
    let parts = vec![
        rank_job(0, 1_000 * SECOND, 2 * SECOND, &[1_000; 100]),
        rank_job(1, 1_000 * SECOND, 4 * SECOND, &[1_000; 100]),
    ];
    let merged = merge(&parts, false, Some(SECOND)).unwrap();
    let read = merged.read.unwrap();
    assert_eq!(read.ops, 200);
    assert_eq!(read.bytes, 200 * 4096);
    // 200 I/Os in the 4 s from the first start to the last end, not 2 x 50/s + 25/s.
    assert_eq!(read.iops, 50.0);
    let c = merged.cluster.unwrap();
    assert_eq!(c.ranks[0].iops(), 50.0);
    assert_eq!(c.ranks[1].iops(), 25.0);
    assert_eq!(c.first_done.ops, 100 + 50);
    assert!(c.stonewall.is_some());
}

#[test]
fn stored_jobs_without_ranks_still_load() {
    let parts = vec![rank_job(0, SECOND, SECOND, &[1_000])];
    let mut json = serde_json::to_value(&parts[0].result).unwrap();
    assert!(
        json.get("cluster").is_none(),
        "a single-host job stores no cluster field"
    );
    json.as_object_mut().unwrap().remove("cluster");
    let back: JobResult = serde_json::from_value(json).unwrap();
    assert_eq!(back.cluster, None);
    let merged = merge(&parts, false, None).unwrap();
    let text = serde_json::to_string(&merged).unwrap();
    let back: JobResult = serde_json::from_str(&text).unwrap();
    assert_eq!(back.cluster.unwrap().ranks.len(), 1);
}

#[test]
fn a_second_phase_continues_the_first() {
    let mut a = rank_job(0, SECOND, 2 * SECOND, &[1_000; 10]).result;
    let b = rank_job(0, 3 * SECOND, SECOND, &[8_000; 10]).result;
    append(&mut a, &b).unwrap();
    let read = a.read.unwrap();
    assert_eq!(read.ops, 20);
    assert_eq!(a.elapsed_ns, 3 * SECOND);
    assert_eq!(read.iops, 20.0 / 3.0);
    assert_eq!(read.lat_ns.max / 10, 800);
    assert_eq!(a.series.last().unwrap().start_ns, 2 * SECOND);
}

// The IO500-like suite: mdtest's phases merged over their own time.
#[test]
fn phases_are_rated_over_the_slowest_ranks_phase_not_the_window() {
    let mut parts = vec![
        rank_job(0, 1_000 * SECOND, 4 * SECOND, &[1_000; 100]),
        rank_job(1, 1_000 * SECOND, 4 * SECOND, &[1_000; 100]),
    ];
    // Rank 0's reads took 1 s of its 4, rank 1's 2 s: a phase each.
    for (p, phase_s) in parts.iter_mut().zip([1.0, 2.0]) {
        let mut job = Job::default();
        job.set("mix", "phases:create,read").unwrap();
        p.result.job.workload = job.workload;
        p.result.read.as_mut().unwrap().iops = 100.0 / phase_s;
    }
    let merged = merge(&parts, false, None).unwrap();
    // mdtest: all tasks' items over the longest task's time.
    assert_eq!(merged.read.unwrap().iops, 100.0);
    // Block jobs keep the window.
    parts[0].result.job.workload = Job::default().workload;
    assert_eq!(merge(&parts, false, None).unwrap().read.unwrap().iops, 50.0);
}
