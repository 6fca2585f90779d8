//! fio's `dedupe_percentage` (fio 3.33 io_u.c `get_buf_state`,
//! `dedupe_mode=repeat`): that share of written buffers repeat the last
//! unique one. kura and fio write the same job; the share of 4 KiB blocks
//! that repeat an earlier one is about the percentage in both files.

mod common;

use std::collections::HashSet;
use std::path::Path;
use std::process::Command;

use common::{kura, tmp};

/// Share of the file's 4 KiB blocks that repeat an earlier block.
fn repeated_share(file: &Path) -> f64 {
    let data = std::fs::read(file).unwrap();
    let blocks: Vec<&[u8]> = data.chunks(4096).collect();
    let unique: HashSet<&[u8]> = blocks.iter().copied().collect();
    1.0 - unique.len() as f64 / blocks.len() as f64
}

fn job_file(dir: &Path, name: &str, pct: u32) -> (std::path::PathBuf, std::path::PathBuf) {
    let target = dir.join(format!("{name}.dat"));
    let file = dir.join(format!("{name}.fio"));
    std::fs::write(
        &file,
        format!(
            "[d]\nfilename={}\nrw=write\nbs=4k\nsize=4m\ndedupe_percentage={pct}\n",
            target.display()
        ),
    )
    .unwrap();
    (file, target)
}

#[test]
fn dedupe_percentage_repeats_that_share_of_blocks_as_fio_does() {
    let dir = tmp();
    let d = dir.path();
    for pct in [0u32, 30, 80] {
        let (file, target) = job_file(d, &format!("k{pct}"), pct);
        kura(&d.join("k.db"))
            .args(["run", "--keep"])
            .arg(&file)
            .assert()
            .success();
        let share = repeated_share(&target);
        // 1024 draws: within 0.06 of the percentage (over 4 standard deviations at 50 %).
        assert!(
            (share - pct as f64 / 100.0).abs() < 0.06,
            "kura, {pct} %: {share}"
        );
        if !common::have_quietly("fio") {
            continue;
        }
        let (file, target) = job_file(d, &format!("f{pct}"), pct);
        let out = Command::new("fio")
            .arg("--output=/dev/null")
            .arg(&file)
            .output()
            .unwrap();
        assert!(out.status.success(), "fio: {}", common::stderr_of(&out));
        let theirs = repeated_share(&target);
        assert!(
            (theirs - share).abs() < 0.08,
            "{pct} %: fio {theirs}, kura {share}"
        );
    }
    // Without fio the comparison is skipped (and fails under KURA_REQUIRE_ALL).
    common::have("fio");
}

/// Verified blocks carry unique headers: dedupe with verify is refused.
#[test]
fn dedupe_with_verify_is_refused() {
    let dir = tmp();
    let out = kura(&dir.path().join("k.db"))
        .args([
            "run",
            "--rw",
            "write",
            "--dedupe-pct",
            "30",
            "--verify",
            "--size",
            "1m",
            "--target",
        ])
        .arg(dir.path().join("v.dat"))
        .output()
        .unwrap();
    let err = common::stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("dedupe_pct") && err.contains("verify"), "{err}");
}

/// fio's `dedupe_mode=working_set` (dedupe.c): a repeat is one of
/// `size x dedupe_working_set_percentage / bs` blocks drawn at random. With
/// `dedupe_global` (fio's dedupe-global.fio) two jobs draw from one set, so
/// blocks of one file repeat in the other; the same in kura and fio.
#[test]
fn a_working_set_bounds_the_repeated_blocks_and_dedupe_global_shares_it() {
    let dir = tmp();
    let d = dir.path();
    let blocks = |file: &Path| -> Vec<Vec<u8>> {
        std::fs::read(file)
            .unwrap()
            .chunks(4096)
            .map(<[u8]>::to_vec)
            .collect()
    };
    let run = |tool: &str, global: u8| -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
        let (a, b) = (
            d.join(format!("{tool}{global}a.dat")),
            d.join(format!("{tool}{global}b.dat")),
        );
        let file = d.join(format!("{tool}{global}.fio"));
        std::fs::write(
            &file,
            format!(
                "[global]\nrw=write\nbs=4k\nsize=4m\ndedupe_percentage=50\ndedupe_mode=working_set\n\
                 dedupe_working_set_percentage=5\ndedupe_global={global}\n[a]\nfilename={}\n[b]\nfilename={}\n",
                a.display(),
                b.display()
            ),
        )
        .unwrap();
        if tool == "kura" {
            kura(&d.join("k.db"))
                .args(["run", "--keep"])
                .arg(&file)
                .assert()
                .success();
        } else {
            let out = Command::new("fio")
                .arg("--output=/dev/null")
                .arg(&file)
                .output()
                .unwrap();
            assert!(out.status.success(), "fio: {}", common::stderr_of(&out));
        }
        (blocks(&a), blocks(&b))
    };
    let tools: &[&str] = if common::have_quietly("fio") {
        &["kura", "fio"]
    } else {
        &["kura"]
    };
    for tool in tools {
        let (a, _) = run(tool, 0);
        let mut seen: std::collections::HashMap<&Vec<u8>, usize> = Default::default();
        for block in &a {
            *seen.entry(block).or_default() += 1;
        }
        // Each of the 1024 writes repeats with chance 1/2, so the repeats are
        // Binomial(1024, 0.5): 512 +- 16; 4 sigma either side keeps this
        // from failing by chance. Every repeat is one of the 51 working-set
        // blocks, whatever the draw: that bound is exact.
        let repeated = seen.values().filter(|&&n| n > 1).count();
        let repeats: usize = seen.values().filter(|&&n| n > 1).sum();
        assert!(
            repeated <= 51,
            "{tool}: {repeated} distinct blocks repeat, the set has 51"
        );
        assert!(
            (448..=576).contains(&repeats),
            "{tool}: {repeats} of 1024 writes are repeats, expected about 512"
        );
        let (a, b) = run(tool, 1);
        let in_a: HashSet<&Vec<u8>> = a.iter().collect();
        let shared = b.iter().filter(|x| in_a.contains(x)).count();
        // Half of b's writes are drawn from the set a draws from too.
        assert!(shared > 400, "{tool}: {shared} of b's blocks are in a");
    }
    common::have("fio");
}
