//! `write_hist_log`: fio's latency histogram log (fio 3.33 iolog.c
//! `flush_hist_samples`): `time, direction, block size, bins...`, one line
//! per window and direction, the bins fio's 1856 log-linear latency bins
//! (coarsened by `log_hist_coarseness`). Checked: the shape is fio's (fio
//! itself writes the same columns for the same job file), every completion
//! is in the log once, and percentiles read off the bins, as fio's
//! tools/hist/fiologparser_hist.py reads them, agree with kura's own.

mod common;

use std::path::Path;
use std::process::Command;

use common::{json, kura, tmp};

/// stat.c `plat_idx_to_val`: the middle of fio's bin.
fn bin_value(idx: usize) -> f64 {
    if idx < 128 {
        return idx as f64;
    }
    let error_bits = (idx >> 6) - 1;
    let base = (1u64 << (error_bits + 6)) as f64;
    base + ((idx % 64) as f64 + 0.5) * (1u64 << error_bits) as f64
}

/// The log's lines: (time ms, direction, block size, bins).
fn lines(path: &Path) -> Vec<(u64, u64, u64, Vec<u64>)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let v: Vec<u64> = l.split(", ").map(|x| x.trim().parse().unwrap()).collect();
            (v[0], v[1], v[2], v[3..].to_vec())
        })
        .collect()
}

fn job_file(dir: &Path, name: &str, prefix: &Path, coarseness: u32) -> std::path::PathBuf {
    let file = dir.join(name);
    std::fs::write(
        &file,
        format!(
            "[h]\nfilename={}\nsize=8m\nrw=randrw\nruntime=1\ntime_based\nwrite_hist_log={}\n\
             log_hist_msec=250\nlog_hist_coarseness={coarseness}\n",
            dir.join(format!("{name}.dat")).display(),
            prefix.display()
        ),
    )
    .unwrap();
    file
}

#[test]
fn the_histogram_log_is_fio_s_and_holds_every_completion() {
    let dir = tmp();
    let d = dir.path();
    let prefix = d.join("k");
    let file = job_file(d, "k.fio", &prefix, 0);
    let out = kura(&d.join("k.db"))
        .args(["--json", "run"])
        .arg(&file)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let job = &json(&out)["jobs"][0];
    let log = lines(&d.join("k_clat_hist.1.log"));
    assert!(log.len() >= 6, "{} lines", log.len());
    for (dir, name) in [(0u64, "read"), (1, "write")] {
        let mine: Vec<_> = log.iter().filter(|l| l.1 == dir).collect();
        assert!(
            mine.iter().all(|l| l.2 == 4096 && l.3.len() == 1856),
            "{name}: columns"
        );
        assert!(
            mine.iter().all(|l| l.0 % 250 == 0 && l.0 <= 1000),
            "{name}: windows"
        );
        let mut bins = vec![0u64; 1856];
        for l in &mine {
            for (b, n) in bins.iter_mut().zip(&l.3) {
                *b += n;
            }
        }
        let total: u64 = bins.iter().sum();
        assert_eq!(total, job[name]["ops"].as_u64().unwrap(), "{name}: completions");
        // Percentiles off the bins agree with kura's within a bin's width and HDR's resolution.
        for p in ["50.000000", "90.000000", "99.000000"] {
            let want = job[name]["lat_ns"]["percentiles"][p].as_f64().unwrap();
            let rank = (p.parse::<f64>().unwrap() / 100.0 * total as f64).ceil() as u64;
            let mut sum = 0;
            let idx = bins
                .iter()
                .position(|n| {
                    sum += n;
                    sum >= rank
                })
                .unwrap();
            let got = bin_value(idx);
            assert!(
                (got - want).abs() <= want * 0.03 + 2.0,
                "{name} p{p}: bins {got}, kura {want}"
            );
        }
    }
}

/// Coarseness 2 sums each 4 bins: 464 per line, as fio writes (fio itself
/// writes the same shape for the same file).
#[test]
fn coarseness_sums_bins_as_fio_does() {
    let dir = tmp();
    let d = dir.path();
    let file = job_file(d, "c.fio", &d.join("k"), 2);
    kura(&d.join("k.db")).arg("run").arg(&file).assert().success();
    let log = lines(&d.join("k_clat_hist.1.log"));
    assert!(!log.is_empty() && log.iter().all(|l| l.3.len() == 464));
    if !common::have("fio") {
        return;
    }
    let file = job_file(d, "f.fio", &d.join("f"), 2);
    let out = Command::new("fio")
        .arg("--output=/dev/null")
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "fio: {}", common::stderr_of(&out));
    let theirs = lines(&d.join("f_clat_hist.1.log"));
    assert!(!theirs.is_empty() && theirs.iter().all(|l| l.3.len() == 464 && l.1 <= 1 && l.2 == 4096));
}
