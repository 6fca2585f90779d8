//! Many ranks at once (docs/cluster.md): real Open MPI ranks started by
//! mpirun on this machine, on real files on a loop device, stored as one
//! run. These need the binary built with `--features mpi`; the default
//! build is checked to refuse being one of many ranks.

mod common;

#[cfg(not(feature = "mpi"))]
use common::*;

/// kura started by a stand-in launcher: a shell named `mpirun` (a rank is
/// always a descendant of its launcher), made in `dir`.
#[cfg(not(feature = "mpi"))]
fn under_launcher(dir: &std::path::Path, db: &std::path::Path) -> std::process::Command {
    let sh = dir.join("mpirun");
    if !sh.exists() {
        std::os::unix::fs::symlink("/bin/sh", &sh).unwrap();
    }
    let mut cmd = std::process::Command::new(sh);
    // Not the last command, so the shell stays kura's parent.
    cmd.arg("-c")
        .arg("\"$0\" \"$@\"; exit $?")
        .arg(common::cmd::bin())
        .arg("--db")
        .arg(db)
        .arg("--quiet");
    cmd
}

/// Launcher variables left in a shell, with no launcher: rank 1 of 4 used
/// to leave at once with exit 0, having done nothing and said nothing.
#[cfg(not(feature = "mpi"))]
#[test]
fn stale_launcher_variables_without_a_launcher_are_refused() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    for args in [
        &["run", "--engine", "null", "--runtime", "1s"][..],
        &["suite", "db", dir.path().to_str().unwrap()][..],
    ] {
        let out = kura(&db)
            .env("OMPI_COMM_WORLD_SIZE", "4")
            .env("OMPI_COMM_WORLD_RANK", "1")
            .args(args)
            .output()
            .unwrap();
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains(
                "OMPI_COMM_WORLD_SIZE=4 OMPI_COMM_WORLD_RANK=1 is set but no MPI launcher (mpirun, mpiexec, srun, ...) started kura"
            ),
            "{err}"
        );
    }
    let made: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(made.is_empty(), "nothing was made: {made:?}");
}

/// Without MPI, a process started as one of many ranks refuses instead of
/// measuring alone and storing a run per rank.
#[cfg(not(feature = "mpi"))]
#[test]
fn a_build_without_mpi_refuses_to_be_one_of_many_ranks() {
    let dir = tmp();
    let db = dir.path().join("k.db");
    let launcher = tmp();
    // Issue 34: mpirun's rank 0 is told what happened (a launch) and what
    // to do; the same variables with no launcher are stale, not a launch.
    let out = under_launcher(launcher.path(), &db)
        .env("OMPI_COMM_WORLD_SIZE", "4")
        .args(["run", "--engine", "null", "--runtime", "1s"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(
            "an MPI launcher started kura as one of 4 ranks (OMPI_COMM_WORLD_SIZE=4), but this kura was built without the `mpi` feature"
        ),
        "{err}"
    );
    assert!(
        err.contains("--features mpi`, or run kura without the launcher"),
        "{err}"
    );
    let out = kura(&db)
        .env("OMPI_COMM_WORLD_SIZE", "4")
        .args(["run", "--engine", "null", "--runtime", "1s"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(
            "OMPI_COMM_WORLD_SIZE=4 is set but no MPI launcher (mpirun, mpiexec, srun, ...) started kura"
        ),
        "{err}"
    );
    assert!(!db.exists(), "nothing was stored");
    // The other ranks leave quietly: the refusal is rank 0's one line.
    for args in [
        &["run", "--engine", "null", "--runtime", "1s"][..],
        &["suite", "tiobench", dir.path().to_str().unwrap()][..],
    ] {
        let out = under_launcher(launcher.path(), &db)
            .env("OMPI_COMM_WORLD_SIZE", "4")
            .env("OMPI_COMM_WORLD_RANK", "2")
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr_of(&out));
        assert_eq!(stderr_of(&out), "", "{args:?}: rank 0 says why");
    }
    assert!(!db.exists(), "nothing was stored");
    let made: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(made.is_empty(), "nothing was made: {made:?}");
    let out = kura(&db)
        .args(["run", "--engine", "null", "--runtime", "1s", "--shared"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("--shared and --stonewall are for many ranks"));
    // The suites that do not run on ranks say so, on rank 0 only.
    let out = under_launcher(launcher.path(), &db)
        .env("OMPI_COMM_WORLD_SIZE", "4")
        .env("OMPI_COMM_WORLD_RANK", "0")
        .args(["suite", "bonnie"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_of(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(
            "kura suite bonnie does not run on many ranks (started as one of 4, OMPI_COMM_WORLD_SIZE=4)"
        ),
        "{err}"
    );
    let out = under_launcher(launcher.path(), &db)
        .env("OMPI_COMM_WORLD_SIZE", "4")
        .env("OMPI_COMM_WORLD_RANK", "3")
        .args(["suite", "db"])
        .arg(dir.path())
        .output()
        .unwrap();
    // Rank 0 says why and fails; the others leave quietly, so that mpirun
    // does not end rank 0 before it has said it.
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stderr_of(&out), "", "rank 0 says why");
    assert!(!db.exists(), "nothing was stored");
    let out = kura(&db)
        .args(["launch", "-n", "2", "--", "run", "--engine", "null"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_of(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("built without MPI"), "{err}");
    assert!(err.trim_end().chars().count() <= 80, "fits 80 columns: {err}");
}

#[cfg(feature = "mpi")]
mod mpi {
    use std::path::{Path, PathBuf};
    use std::process::{Command, Output};

    use super::common::nshosts::NsHosts;
    use super::common::*;

    /// `mpirun` as root, on this host, more ranks than cores allowed.
    fn mpirun() -> Command {
        let mut c = Command::new("mpirun");
        c.args(["--allow-run-as-root", "--oversubscribe"]);
        c
    }

    fn ranks(n: u32, db: &Path, args: &[&str]) -> Output {
        let mut c = mpirun();
        c.args(["-n", &n.to_string()])
            .arg(cmd::bin())
            .arg("--db")
            .arg(db)
            .arg("--quiet");
        c.args(args);
        c.output().unwrap()
    }

    fn show(db: &Path) -> serde_json::Value {
        let out = kura(db).args(["show", "latest", "--json"]).output().unwrap();
        assert!(out.status.success(), "{}", stderr_of(&out));
        json(&out.stdout)
    }

    fn write_job(dir: &Path, text: &str) -> PathBuf {
        let p = dir.join("job.toml");
        std::fs::write(&p, text).unwrap();
        p
    }

    /// The "done": 4 ranks on one shared target, stored as one run,
    /// shown per rank and in total in the terminal, `kura show` and the HTML
    /// report; the total p99 read off the pooled histogram.
    #[test]
    fn four_ranks_on_one_shared_file_are_one_run() {
        if !need(&["mpirun", "losetup", "mkfs.ext4"]) {
            return;
        }
        let lo = LoopDevice::sized(256 << 20);
        lo.mkfs_ext4();
        let mnt = TempMount::new(&[], &lo.path);
        let dir = tmp();
        let db = dir.path().join("k.db");
        let target = mnt.dir.path().join("shared.dat");
        let job = write_job(
            dir.path(),
            &format!(
                "[[job]]\nname = \"mixed\"\ntarget = \"{}\"\nsize = \"64m\"\nrw = \"randrw\"\nbs = \"4k\"\n\
                 direct = true\nengine = \"sync\"\nruntime = \"2s\"\ninterval = \"500ms\"\n",
                target.display()
            ),
        );
        let out = ranks(
            4,
            &db,
            &["run", job.to_str().unwrap(), "--shared", "--label", "four"],
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{stdout}{}", stderr_of(&out));
        assert!(
            stdout.contains("4 ranks on 1 host, each on its share of one shared file"),
            "{stdout}"
        );
        assert!(stdout.contains(" total "), "{stdout}");
        assert!(!target.exists(), "the shared test file is removed");

        let run = show(&db);
        let j = &run["jobs"][0];
        let c = &j["cluster"];
        let rows = c["ranks"].as_array().unwrap();
        assert_eq!(rows.len(), 4);
        assert_eq!(c["shared"], true);
        let total_ops = j["read"]["ops"].as_u64().unwrap() + j["write"]["ops"].as_u64().unwrap();
        let rank_ops: u64 = rows.iter().map(|r| r["ops"].as_u64().unwrap()).sum();
        assert_eq!(rank_ops, total_ops);
        assert!(rows.iter().all(|r| r["ops"].as_u64().unwrap() > 0));
        assert!(rows.iter().all(|r| r["target"] == target.display().to_string()));
        // The stored histogram holds every rank's I/Os, and the p99 is read off it.
        let h = kura::metrics::histogram::decode(j["read"]["histogram"].as_str().unwrap()).unwrap();
        assert_eq!(h.len(), j["read"]["ops"].as_u64().unwrap());
        assert_eq!(
            j["read"]["lat_ns"]["percentiles"]["99.000000"].as_u64().unwrap(),
            h.value_at_quantile(0.99)
        );
        let series_ops: u64 = j["series"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["read_ops"].as_u64().unwrap() + p["write_ops"].as_u64().unwrap())
            .sum();
        assert_eq!(series_ops, total_ops);
        assert_eq!(run["label"], "four");

        let shown = kura(&db).args(["show", "latest"]).output().unwrap();
        let text = String::from_utf8_lossy(&shown.stdout);
        assert!(text.contains("spread: fastest rank"), "{text}");
        assert!(text.contains("first done at"), "{text}");
        let html = dir.path().join("r.html");
        kura(&db)
            .args(["report", "latest", "-o"])
            .arg(&html)
            .assert()
            .success();
        let page = std::fs::read_to_string(&html).unwrap();
        let at = page
            .find("-ranks\"")
            .expect("the per-rank table is in the report");
        let table = &page[at..at + page[at..].find("</table>").unwrap()];
        assert_eq!(
            table.matches("<tr><td>").count(),
            5,
            "4 ranks and the total: {table}"
        );
        assert!(page.contains("spread: the fastest rank did"));
    }

    /// The setting: 4 ranks on 4 namespace hosts (own hostname,
    /// network, mount namespace and sshd, started by mpirun over ssh from a
    /// hostfile), one rank each, on one shared target: a NAS, one exported
    /// directory (ext4 on a loop device) that each host mounts with sshfs.
    /// One shared file, then one shared file set, each stored as one run
    /// with a row per host, in the terminal, `show --json` and the HTML
    /// report; the total's percentiles are those of the pooled ranks.
    #[test]
    fn four_ranks_on_four_namespace_hosts_share_one_sshfs_nas() {
        if !need(&[
            "mpirun",
            "ip",
            "unshare",
            "nsenter",
            "mountpoint",
            "ssh",
            "ssh-keygen",
            "/usr/sbin/sshd",
            "sshfs",
            "losetup",
            "mkfs.ext4",
        ]) {
            return;
        }
        let lo = LoopDevice::sized(128 << 20);
        lo.mkfs_ext4();
        let export = TempMount::new(&[], &lo.path);
        std::fs::create_dir(export.dir.path().join("sets")).unwrap();
        let hosts = NsHosts::new(4, export.dir.path());
        let dir = tmp();
        let db = dir.path().join("k.db");
        // The path every rank opens: its host's sshfs mount.
        let target = hosts.nas().join("nas.dat");
        let job = write_job(
            dir.path(),
            &format!(
                "[[job]]\nname = \"nas\"\ntarget = \"{}\"\nsize = \"16m\"\nrw = \"randrw\"\nbs = \"4k\"\n\
                 engine = \"sync\"\nio_count = 300\nruntime = \"120s\"\ninterval = \"250ms\"\n",
                target.display()
            ),
        );
        let on_hosts = |args: &[&str]| {
            let out = hosts
                .mpirun(1)
                .args(["-n", "4"])
                .arg(cmd::bin())
                .arg("--db")
                .arg(&db)
                .arg("--quiet")
                .args(args)
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
            assert!(out.status.success(), "{stdout}{}", stderr_of(&out));
            stdout
        };
        let stdout = on_hosts(&["run", job.to_str().unwrap(), "--shared"]);
        assert!(stdout.contains("4 ranks on 4 hosts"), "{stdout}");
        assert!(stdout.contains(" total "), "{stdout}");
        let run = show(&db);
        let j = &run["jobs"][0];
        let rows = rows_of(j);
        assert_eq!(rows.len(), 4, "one run, a row per rank");
        for (r, row) in rows.iter().enumerate() {
            // One slot per host: rank r on host r, each on its host's mount,
            // each its count (a count, not a time: a loaded machine may
            // stall a rank's first I/O through FUSE, ssh and the NAS).
            assert_eq!(row["host"], format!("node{r}"), "{row}");
            assert_eq!(row["target"], target.display().to_string());
            assert_eq!(row["ops"], 300, "{row}");
            assert!(stdout.contains(&format!("node{r}")), "{stdout}");
        }
        assert_eq!(j["cluster"]["shared"], true);
        assert_eq!(j["target"]["fs_type"], "fuse.sshfs", "the NAS, as rank 0 saw it");
        // The total is the ranks' sum, and its histograms hold every rank's I/Os.
        let rank_ops: u64 = rows.iter().map(|r| r["ops"].as_u64().unwrap()).sum();
        let mut pooled = kura::metrics::histogram::new_histogram();
        let mut total_ops = 0;
        for d in ["read", "write"] {
            let h = kura::metrics::histogram::decode(j[d]["histogram"].as_str().unwrap()).unwrap();
            assert_eq!(h.len(), j[d]["ops"].as_u64().unwrap());
            assert_eq!(
                j[d]["lat_ns"]["percentiles"]["99.000000"].as_u64().unwrap(),
                h.value_at_quantile(0.99),
                "{d}: the p99 is read off the merged histogram"
            );
            total_ops += h.len();
            pooled.add(&h).unwrap();
        }
        assert_eq!(rank_ops, total_ops);
        assert_eq!(total_ops, 4 * 300);
        // A quantile of pooled samples lies between the parts' quantiles.
        let p99s: Vec<u64> = rows.iter().map(|r| r["lat_p99_ns"].as_u64().unwrap()).collect();
        let p99 = pooled.value_at_quantile(0.99);
        assert!(
            *p99s.iter().min().unwrap() <= p99 && p99 <= *p99s.iter().max().unwrap(),
            "pooled p99 {p99} outside the ranks' {p99s:?}"
        );
        assert!(
            !export.dir.path().join("nas.dat").exists(),
            "rank 0 removed the shared file over sshfs"
        );

        let shown = kura(&db).args(["show", "latest"]).output().unwrap();
        let text = String::from_utf8_lossy(&shown.stdout);
        assert!(text.contains("spread: fastest rank"), "{text}");
        let html = dir.path().join("r.html");
        kura(&db)
            .args(["report", "latest", "-o"])
            .arg(&html)
            .assert()
            .success();
        let page = std::fs::read_to_string(&html).unwrap();
        let at = page
            .find("-ranks\"")
            .expect("the per-rank table is in the report");
        let table = &page[at..at + page[at..].find("</table>").unwrap()];
        assert_eq!(
            table.matches("<tr><td>").count(),
            5,
            "4 ranks and the total: {table}"
        );
        for r in 0..4 {
            assert!(table.contains(&format!("<td>node{r}</td>")), "{table}");
        }

        // A file set on the NAS, each rank on its share of one set's files.
        let sets = hosts.nas().join("sets");
        let stdout = on_hosts(&[
            "run",
            "--target",
            sets.to_str().unwrap(),
            "--mix",
            "sfs97",
            "--width",
            "2",
            "--files",
            "40",
            "--threads",
            "1",
            "--io-count",
            "100",
            "--runtime",
            "120s",
            "--shared",
        ]);
        assert!(
            stdout.contains("each on its share of one file set's files"),
            "{stdout}"
        );
        let run = show(&db);
        let rows = rows_of(&run["jobs"][0]);
        assert_eq!(rows.len(), 4);
        for (r, row) in rows.iter().enumerate() {
            assert_eq!(row["host"], format!("node{r}"), "{row}");
            assert_eq!(row["target"], sets.display().to_string());
            assert_eq!(row["ops"], 100, "{row}");
            assert_eq!(row["errors"], 0, "{}", run["warnings"]);
        }
        let left: Vec<_> = std::fs::read_dir(export.dir.path().join("sets"))
            .unwrap()
            .collect();
        assert!(
            left.is_empty(),
            "rank 0 removed the set: {:?}; warnings: {}",
            super::walk(&export.dir.path().join("sets")),
            run["warnings"]
        );

        // The IO500-like suite on 2 hosts, 2 ranks each (ranks 0 and 1 on
        // node0): each ior read phase reads what a rank on the other host
        // wrote, as IOR's -C -Q 1 (two ranks on, node0's count).
        std::fs::create_dir(export.dir.path().join("io500")).unwrap();
        let data = hosts.nas().join("io500");
        let out = hosts
            .mpirun(2)
            .args(["-n", "4"])
            .arg(cmd::bin())
            .arg("--db")
            .arg(&db)
            .args(["--quiet", "suite", "io500"])
            .arg(&data)
            .args([
                "--stonewall",
                "200ms",
                "--easy-size",
                "4m",
                "--easy-transfer",
                "1m",
                "--hard-segments",
                "16",
                "--easy-files",
                "50",
                "--hard-files",
                "16",
            ])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr_of(&out));
        let run = show(&db);
        let job = |test: &str| {
            run["jobs"]
                .as_array()
                .unwrap()
                .iter()
                .find(|j| j["test"] == test)
                .unwrap()
                .clone()
        };
        let written = rows_of(&job("ior-easy-write"));
        let read = rows_of(&job("ior-easy-read"));
        for r in 0..4 {
            assert_eq!(written[r]["host"], format!("node{}", r / 2), "{written:?}");
            assert_eq!(
                written[r]["target"],
                format!("{}/kura-io500-easy.dat.{r}", data.display())
            );
            assert_eq!(
                read[r]["target"],
                format!("{}/kura-io500-easy.dat.{}", data.display(), (r + 2) % 4),
                "rank {r} reads node{}'s file",
                (r / 2 + 1) % 2
            );
        }
        let hard = |test: &str, dir: &str| job(test)[dir]["bytes"].as_u64().unwrap();
        // The stonewall may end the write early on a slow NAS; the read
        // takes every segment of the (pre-filled) file.
        assert!(hard("ior-hard-write", "write") > 0);
        assert_eq!(hard("ior-hard-read", "read"), 4 * 16 * 47008);
        assert_eq!(
            super::walk(&export.dir.path().join("io500")),
            Vec::<String>::new()
        );

        // Seed 3 (fstress): the SPECsfs97-like mix from every host on one
        // shared set, the offered load (the total of the 4 hosts) raised
        // until the mean latency crosses a bound. Each step is one merged
        // job with a row per host.
        let stdout = on_hosts(&[
            "run",
            "--target",
            sets.to_str().unwrap(),
            "--mix",
            "sfs97",
            "--width",
            "2",
            "--files",
            "40",
            "--threads",
            "1",
            // 1 s a step: a step must do 20 operations to be judged, and a
            // loaded machine's probe over sshfs may offer the climb 37 IOPS.
            "--runtime",
            "1s",
            "--latency-limit",
            "1us",
            "--shared",
        ]);
        assert!(stdout.contains("latency-bounded search"), "{stdout}");
        let run = show(&db);
        let steps = run["jobs"].as_array().unwrap();
        assert!(steps.len() >= 3, "probe, climb, descend: {}", steps.len());
        for (i, step) in steps.iter().enumerate() {
            assert_eq!(step["job"]["latency_step"]["index"], i as u64);
            let rows = rows_of(step);
            let hosts: Vec<&str> = rows.iter().map(|r| r["host"].as_str().unwrap()).collect();
            assert_eq!(hosts, ["node0", "node1", "node2", "node3"], "step {i}");
            let ops: u64 = rows.iter().map(|r| r["ops"].as_u64().unwrap()).sum();
            // A file set's reads and writes are its directions; the rest its operations.
            let merged: u64 = step["operations"]
                .as_object()
                .unwrap()
                .values()
                .chain([&step["read"], &step["write"]])
                .filter_map(|o| o["ops"].as_u64())
                .sum();
            assert_eq!(ops, merged, "step {i}: the hosts' ops are the step's");
        }
        let rate = |i: usize| steps[i]["job"]["rate_iops"].as_u64().unwrap();
        assert!(rate(2) < rate(1), "the search descended after crossing 1 µs");
        assert_eq!(super::walk(&export.dir.path().join("sets")), Vec::<String>::new());
    }

    /// One rank throttled (a blkio cgroup on the loop device) falls behind;
    /// at the stonewall every rank stops, and then each completes up to the
    /// count the fastest reached. Both numbers are stored.
    #[test]
    fn the_stonewall_waits_for_a_slowed_rank() {
        if !need(&["mpirun", "losetup", "mkfs.ext4", "lsblk"]) {
            return;
        }
        // A group per rank: a blkio throttle is shared by every process in its group.
        let groups: Option<Vec<Cgroup>> = (0..4).map(|r| Cgroup::blkio(&format!("mpi-rank{r}"))).collect();
        let Some(groups) = groups else {
            return;
        };
        let lo = LoopDevice::sized(256 << 20);
        lo.mkfs_ext4();
        let mnt = TempMount::new(&[], &lo.path);
        let dir = tmp();
        let db = dir.path().join("k.db");
        let target = mnt.dir.path().join("t.dat");
        let job = write_job(
            dir.path(),
            &format!(
                "[[job]]\nname = \"walled\"\ntarget = \"{}\"\nsize = \"16m\"\nrw = \"randread\"\nbs = \"4k\"\n\
                 direct = true\nengine = \"sync\"\nruntime = \"60s\"\ninterval = \"500ms\"\n",
                target.display()
            ),
        );
        let majmin = sh(&format!("lsblk -dno MAJ:MIN {}", lo.path.display()));
        for (r, g) in groups.iter().enumerate() {
            let iops = if r == 3 { 200 } else { 600 };
            std::fs::write(
                g.0.join("blkio.throttle.read_iops_device"),
                format!("{majmin} {iops}"),
            )
            .unwrap();
        }
        // Each rank moves itself into its group before it becomes kura (MPMD: one app per rank).
        let mut args: Vec<String> = Vec::new();
        for (r, g) in groups.iter().enumerate() {
            if r > 0 {
                args.push(":".into());
            }
            let script = format!(
                "echo $$ > {}/cgroup.procs && exec {} --db {} --quiet run {} --stonewall 2s",
                g.0.display(),
                cmd::bin().display(),
                db.display(),
                job.display()
            );
            args.extend(["-n".into(), "1".into(), "sh".into(), "-c".into(), script]);
        }
        let out = mpirun().args(&args).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{stdout}{}", stderr_of(&out));
        assert!(
            stdout.contains("stonewall 2.0 s: ops per rank at the deadline min"),
            "{stdout}"
        );

        let run = show(&db);
        let c = &run["jobs"][0]["cluster"];
        let s = &c["stonewall"];
        let (min, max) = (
            s["min_ops_at_deadline"].as_u64().unwrap(),
            s["max_ops_at_deadline"].as_u64().unwrap(),
        );
        assert!(min * 2 < max, "the slowed rank fell behind: {s}");
        let rows = c["ranks"].as_array().unwrap();
        assert_eq!(
            rows[3]["ops_at_deadline"].as_u64().unwrap(),
            min,
            "rank 3 is the slow one"
        );
        for r in rows {
            // Wear-out: every rank completed up to the largest count.
            assert_eq!(r["ops"].as_u64().unwrap(), max, "{r}");
        }
        assert_eq!(s["ops_after_wear_out"].as_u64().unwrap(), 4 * max);
        let at_deadline: u64 = rows.iter().map(|r| r["ops_at_deadline"].as_u64().unwrap()).sum();
        assert_eq!(s["ops_at_deadline"].as_u64().unwrap(), at_deadline);
        // The total holds every rank's I/Os after wear-out, the slowed rank's
        // as many as any other's, and its p99 is theirs pooled: between the
        // ranks' own p99s, read off the merged histogram.
        let j = &run["jobs"][0];
        let h = kura::metrics::histogram::decode(j["read"]["histogram"].as_str().unwrap()).unwrap();
        assert_eq!(h.len(), 4 * max);
        let p99 = j["read"]["lat_ns"]["percentiles"]["99.000000"].as_u64().unwrap();
        assert_eq!(p99, h.value_at_quantile(0.99));
        let p99s: Vec<u64> = rows.iter().map(|r| r["lat_p99_ns"].as_u64().unwrap()).collect();
        assert!(
            *p99s.iter().min().unwrap() <= p99 && p99 <= *p99s.iter().max().unwrap(),
            "pooled p99 {p99} outside the ranks' {p99s:?}"
        );
        let stop_skew = |i: usize| rows[i]["stop_skew_ns"].as_u64().unwrap();
        assert!(
            (0..3).all(|i| stop_skew(i) < stop_skew(3)),
            "rank 3 ends last: {c}"
        );
        // elbencho's pair: the rate when the first rank was done beats the rate at the end.
        let rate = |p: &serde_json::Value| p["ops"].as_f64().unwrap() / p["elapsed_ns"].as_f64().unwrap();
        assert!(rate(&c["first_done"]) > rate(&c["last_done"]), "{c}");
        assert!(!target.with_extension("dat.3").exists());
    }

    /// `kura suite tiobench` on 2 ranks: each rank's threads on files of
    /// its own, every test one merged job with a row per rank, the rates
    /// the ranks' totals (random tests: every rank's --random-ops), the
    /// hosts' table under tiobench's, every file removed.
    #[test]
    fn tiobench_on_two_ranks_is_one_run() {
        if !need(&["mpirun"]) {
            return;
        }
        let dir = tmp();
        let db = dir.path().join("k.db");
        let args = ["--threads", "2", "--file-size", "1m", "--random-ops", "100"];
        let out = ranks(
            2,
            &db,
            &[
                &["suite", "tiobench", dir.path().to_str().unwrap()][..],
                &args[..],
            ]
            .concat(),
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{stdout}{}", stderr_of(&out));
        assert!(stdout.contains("2 ranks on 1 host"), "{stdout}");
        let run = show(&db);
        assert_eq!(run["suite"], "tiobench");
        let jobs = run["jobs"].as_array().unwrap();
        let tests: Vec<&str> = jobs.iter().map(|j| j["test"].as_str().unwrap()).collect();
        assert_eq!(
            tests,
            [
                "Sequential Write",
                "Random Write",
                "Sequential Read",
                "Random Read"
            ]
        );
        for j in jobs {
            let rows = rows_of(j);
            assert_eq!(rows.len(), 2, "{}", j["test"]);
            let dir_key = if j["write"]["ops"].as_u64().unwrap_or(0) > 0 {
                "write"
            } else {
                "read"
            };
            let ops: u64 = rows.iter().map(|r| r["ops"].as_u64().unwrap()).sum();
            assert_eq!(ops, j[dir_key]["ops"].as_u64().unwrap(), "{}", j["test"]);
            let expected = match j["test"].as_str().unwrap() {
                // 2 ranks x 2 threads x 1 MiB in 4k blocks; 100 random ops per rank.
                t if t.starts_with("Sequential") => 2 * 2 * 256,
                _ => 2 * 100,
            };
            assert_eq!(ops, expected, "{}", j["test"]);
            let target = rows[1]["target"].as_str().unwrap();
            assert!(
                target.contains("kura-tiobench.dat.1."),
                "rank 1, a thread of it: {target}"
            );
        }
        // Both ranks' files are on this one host: its page cache holds
        // 2 ranks x 2 threads x 1 MiB, not one rank's 2 MiB.
        let cache: Vec<&serde_json::Value> = run["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|w| w["kind"] == "page_cache_holds_data")
            .collect();
        assert_eq!(cache.len(), 1, "{}", run["warnings"]);
        assert_eq!(cache[0]["data_mb"], 4, "{}", run["warnings"]);
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .filter(|n| n.to_string_lossy().starts_with("kura-tiobench"))
            .collect();
        assert!(left.is_empty(), "left behind: {left:?}");
    }

    /// The suites that do not run on ranks (bonnie, the database)
    /// refuse on many ranks in one line, exit 2, before they make anything;
    /// otherwise each rank would measure alone and store its own run.
    #[test]
    fn suites_that_do_not_run_on_ranks_refuse_in_one_line() {
        if !need(&["mpirun"]) {
            return;
        }
        let dir = tmp();
        let db = dir.path().join("k.db");
        for verb in ["bonnie", "db"] {
            let out = ranks(2, &db, &["suite", verb, dir.path().to_str().unwrap()]);
            assert!(!out.status.success());
            let err = stderr_of(&out);
            let ours: Vec<&str> = err.lines().filter(|l| l.starts_with("kura:")).collect();
            assert_eq!(ours.len(), 1, "{err}");
            assert!(
                ours[0].contains(&format!(
                    "kura suite {verb} does not run on many ranks (started as one of 2, OMPI_COMM_WORLD_SIZE=2)"
                )),
                "{err}"
            );
            if verb != "bonnie" {
                continue;
            }
            // kura launch: exit 2 and that one line.
            let out = kura(&db)
                .args([
                    "launch",
                    "-n",
                    "2",
                    "--mpirun-arg=--oversubscribe",
                    "--",
                    "suite",
                    verb,
                ])
                .arg(dir.path())
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
            let err = stderr_of(&out);
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(err.contains("does not run on many ranks"), "{err}");
        }
        assert!(!db.exists(), "nothing was stored");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert!(left.is_empty(), "nothing was made in DIR: {left:?}");
    }

    /// Ranks given different jobs are refused, naming the ranks, in one line.
    #[test]
    fn ranks_with_different_jobs_are_refused_by_name() {
        if !need(&["mpirun"]) {
            return;
        }
        let dir = tmp();
        let db = dir.path().join("k.db");
        let a = dir.path().join("a.toml");
        let b = dir.path().join("b.toml");
        std::fs::write(&a, "[[job]]\nname = \"j\"\nengine = \"null\"\nruntime = \"1s\"\n").unwrap();
        std::fs::write(&b, "[[job]]\nname = \"j\"\nengine = \"null\"\nruntime = \"2s\"\n").unwrap();
        let rank = |job: &Path| {
            vec![
                "-n".to_string(),
                "1".into(),
                cmd::bin().display().to_string(),
                "--db".into(),
                db.display().to_string(),
                "--quiet".into(),
                "run".into(),
                job.display().to_string(),
            ]
        };
        let mut args = rank(&a);
        args.push(":".into());
        args.extend(rank(&a));
        args.push(":".into());
        args.extend(rank(&b));
        let out = mpirun().args(&args).output().unwrap();
        assert!(!out.status.success());
        let err = stderr_of(&out);
        let ours: Vec<&str> = err.lines().filter(|l| l.starts_with("kura:")).collect();
        assert_eq!(ours.len(), 1, "{err}");
        assert!(ours[0].contains("ranks 2 ("), "{err}");
        assert!(ours[0].contains("were given other jobs than rank 0"), "{err}");
    }

    /// A rank that fails ends the run on every rank; what was measured
    /// before is stored, marked incomplete, and every test file is removed.
    #[test]
    fn a_failing_rank_ends_the_run_and_keeps_what_was_measured() {
        if !need(&["mpirun"]) {
            return;
        }
        let dir = tmp();
        let db = dir.path().join("k.db");
        let (a, b) = (dir.path().join("a.dat"), dir.path().join("b.dat"));
        // Rank 1's file of the second job is a directory: it cannot prepare.
        std::fs::create_dir(dir.path().join("b.dat.1")).unwrap();
        let job = write_job(
            dir.path(),
            &format!(
                "[global]\nsize = \"4m\"\nengine = \"sync\"\nruntime = \"1s\"\nrw = \"randwrite\"\n\
                 [[job]]\nname = \"first\"\ntarget = \"{}\"\n[[job]]\nname = \"second\"\ntarget = \"{}\"\n",
                a.display(),
                b.display()
            ),
        );
        let out = ranks(2, &db, &["run", job.to_str().unwrap()]);
        assert!(!out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
        let run = show(&db);
        assert_eq!(run["incomplete"], true);
        let jobs = run["jobs"].as_array().unwrap();
        assert_eq!(jobs.len(), 1, "the first job was measured and kept");
        assert_eq!(jobs[0]["cluster"]["ranks"].as_array().unwrap().len(), 2);
        let warnings = run["warnings"].to_string();
        assert!(
            warnings.contains("rank 1: ") && warnings.contains("is a directory"),
            "{warnings}"
        );
        for f in ["a.dat.0", "a.dat.1", "b.dat.0"] {
            assert!(!dir.path().join(f).exists(), "{f} left behind");
        }
    }

    fn rows_of(job: &serde_json::Value) -> Vec<serde_json::Value> {
        job["cluster"]["ranks"].as_array().unwrap().clone()
    }

    /// `kura mark` on 2 ranks: one run of the suite, every pass merged
    /// with its test named and a row per rank, the hosts' table under the
    /// grid, each rank's test file (the rank appended) removed.
    #[test]
    fn mark_on_two_ranks_is_one_run() {
        if !need(&["mpirun"]) {
            return;
        }
        let dir = tmp();
        let db = dir.path().join("k.db");
        let out = ranks(
            2,
            &db,
            &[
                "mark",
                dir.path().to_str().unwrap(),
                "--profile",
                "demo",
                "--size",
                "8m",
                "--runs",
                "2",
                "--runtime",
                "300ms",
                "--engine",
                "sync",
            ],
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{stdout}{}", stderr_of(&out));
        assert!(stdout.contains("SEQ1M Q8T1"), "{stdout}");
        assert!(
            stdout.contains("2 ranks on 1 host, every job of the run together"),
            "{stdout}"
        );
        let run = show(&db);
        assert_eq!(run["suite"], "mark:demo");
        let jobs = run["jobs"].as_array().unwrap();
        assert!(jobs.len() >= 4, "reads and writes, 2 passes each: {}", jobs.len());
        for j in jobs {
            assert_eq!(j["test"], "SEQ1M Q8T1");
            let rows = rows_of(j);
            assert_eq!(rows.len(), 2);
            assert_eq!(
                rows.iter().map(|r| r["ops"].as_u64().unwrap()).sum::<u64>(),
                j["read"]["ops"].as_u64().unwrap_or(0) + j["write"]["ops"].as_u64().unwrap_or(0)
            );
            assert!(rows[1]["target"].as_str().unwrap().ends_with("kura-test.dat.1"));
        }
        for f in ["kura-test.dat.0", "kura-test.dat.1"] {
            assert!(!dir.path().join(f).exists(), "{f} left behind");
        }
    }

    /// A file set on 2 ranks: each rank its own set in its own directory
    /// (removed after), or every rank on its share of one set's files, so
    /// no rank deletes or renames a file another reads (no errors).
    #[test]
    fn file_sets_on_two_ranks_per_rank_and_shared() {
        if !need(&["mpirun"]) {
            return;
        }
        let dir = tmp();
        let db = dir.path().join("k.db");
        let anchor = dir.path().join("nas");
        std::fs::create_dir(&anchor).unwrap();
        let set = [
            "run",
            "--target",
            anchor.to_str().unwrap(),
            "--mix",
            "sfs97",
            "--width",
            "2",
            "--files",
            "50",
            "--threads",
            "2",
            "--runtime",
            "1s",
        ];
        let out = ranks(2, &db, &set);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{stdout}{}", stderr_of(&out));
        assert!(
            stdout.contains("2 ranks on 1 host, each on its own file set (ANCHOR/kura-rank-RANK)"),
            "{stdout}"
        );
        let run = show(&db);
        let rows = rows_of(&run["jobs"][0]);
        for (r, row) in rows.iter().enumerate() {
            assert_eq!(
                row["target"].as_str().unwrap(),
                anchor.join(format!("kura-rank-{r}")).display().to_string()
            );
            assert!(row["ops"].as_u64().unwrap() > 0);
        }
        assert_eq!(run["jobs"][0]["job"]["target"], anchor.display().to_string());
        let left: Vec<_> = std::fs::read_dir(&anchor).unwrap().collect();
        assert!(left.is_empty(), "the ranks' directories are removed: {left:?}");

        let mut shared = set.to_vec();
        shared.push("--shared");
        let out = ranks(2, &db, &shared);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{stdout}{}", stderr_of(&out));
        assert!(
            stdout.contains("each on its share of one file set's files"),
            "{stdout}"
        );
        let run = show(&db);
        let j = &run["jobs"][0];
        let rows = rows_of(j);
        assert!(rows.iter().all(|r| r["target"] == anchor.display().to_string()));
        assert!(rows.iter().all(|r| r["ops"].as_u64().unwrap() > 0));
        // Files owned across every rank's threads: no rank's delete or rename
        // took a file from under another's read.
        assert!(
            rows.iter().all(|r| r["errors"].as_u64().unwrap() == 0),
            "{}",
            run["warnings"]
        );
        assert!(
            !anchor.join("kura-fileset").exists(),
            "rank 0 removed the shared set"
        );
    }

    /// A latency-bounded search on 2 ranks: the offered rate is the total,
    /// each rank offering its half; every rank follows rank 0's verdicts,
    /// so the steps are one search, each step merged from both ranks.
    #[test]
    fn a_latency_search_on_two_ranks_offers_the_total_rate() {
        if !need(&["mpirun"]) {
            return;
        }
        let dir = tmp();
        let db = dir.path().join("k.db");
        // A mean latency of 1 ns is never held: the search probes, climbs
        // from a tenth of the probe, then descends, halving the rate.
        let out = ranks(
            2,
            &db,
            &[
                "run",
                "--engine",
                "null",
                "--runtime",
                "300ms",
                "--latency-limit",
                "1ns",
                "--latency-stat",
                "mean",
            ],
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{stdout}{}", stderr_of(&out));
        assert!(stdout.contains("latency-bounded search"), "{stdout}");
        let run = show(&db);
        let steps = run["jobs"].as_array().unwrap();
        assert!(steps.len() >= 3, "{}", steps.len());
        for (i, s) in steps.iter().enumerate() {
            assert_eq!(s["job"]["latency_step"]["index"], i as u64);
            let rows = rows_of(s);
            assert_eq!(rows.len(), 2);
            let ops: u64 = rows.iter().map(|r| r["ops"].as_u64().unwrap()).sum();
            assert_eq!(ops, s["read"]["ops"].as_u64().unwrap());
            if i == 0 {
                assert!(s["job"]["rate_iops"].is_null(), "the probe is unthrottled");
                continue;
            }
            // Paced, the ranks together never do more than the total offered
            // (each rank offering all of it would do twice that).
            let rate = s["job"]["rate_iops"].as_u64().unwrap() as f64;
            let secs = s["elapsed_ns"].as_u64().unwrap() as f64 / 1e9;
            assert!(
                (ops as f64) <= rate * secs * 1.25 + 4.0,
                "step {i}: {ops} ops at {rate}/s"
            );
        }
        let rate = |i: usize| steps[i]["job"]["rate_iops"].as_u64().unwrap();
        assert!(rate(2) < rate(1), "the search descended after crossing");
    }

    /// `kura launch` starts mpirun with this kura as every rank; a hostfile
    /// naming a host that does not answer is one line and exit 2, not
    /// mpirun's banner.
    #[test]
    fn launch_runs_the_ranks_and_makes_mpi_errors_one_line() {
        if !need(&["mpirun", "ssh"]) {
            return;
        }
        let dir = tmp();
        let db = dir.path().join("k.db");
        let out = kura(&db)
            .args(["launch", "-n", "2", "--mpirun-arg=--oversubscribe", "--"])
            .args(["run", "--engine", "null", "--runtime", "300ms"])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{stdout}{}", stderr_of(&out));
        assert!(stdout.contains("2 ranks on 1 host"), "{stdout}");
        assert_eq!(rows_of(&show(&db)["jobs"][0]).len(), 2);

        // TEST-NET-1 (RFC 5737): no host answers there.
        let hosts = dir.path().join("hosts");
        std::fs::write(&hosts, "192.0.2.1 slots=2\n").unwrap();
        let out = kura(&db)
            .args(["launch", "-n", "2", "--hostfile"])
            .arg(&hosts)
            .args([
                "--mpirun-arg=--mca",
                "--mpirun-arg=plm_rsh_agent",
                "--mpirun-arg=ssh -o ConnectTimeout=2 -o BatchMode=yes",
                "--",
                "run",
                "--engine",
                "null",
                "--runtime",
                "300ms",
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
        let err = stderr_of(&out);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with("kura: error: mpirun could not run the 2 ranks (hostfile "),
            "{err}"
        );
    }
}

/// Every path under `dir`, for a failure's message.
#[cfg(feature = "mpi")]
fn walk(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            out.push(e.path().display().to_string());
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(e.path());
            }
        }
    }
    out
}
