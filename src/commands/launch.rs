//! `kura launch -n 4 --hostfile hosts -- run job.toml`: mpirun started with
//! this kura as every rank and the global flags passed on; when mpirun
//! cannot start the ranks, its banner is made one line (cluster::launch).

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use anyhow::{Result, bail};

use super::Ctx;
use crate::cli::LaunchArgs;
use crate::cluster::launch::{condense, is_mpi_line};

pub fn run(ctx: &Ctx, args: LaunchArgs) -> Result<i32> {
    if !cfg!(feature = "mpi") {
        // One line within 80 columns with "kura: error: " before it.
        bail!("launch: this kura was built without MPI; build with --features mpi");
    }
    if args.ranks == 0 {
        bail!("-n: 0 ranks; give 1 or more");
    }
    if let Some(h) = &args.hostfile
        && let Err(e) = std::fs::metadata(h)
    {
        bail!("--hostfile {}: {e}", h.display());
    }
    let kura = std::env::current_exe()?;
    let mut c = Command::new("mpirun");
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        c.arg("--allow-run-as-root");
    }
    c.args(["-n", &args.ranks.to_string()]);
    if let Some(h) = &args.hostfile {
        c.arg("--hostfile").arg(h);
    }
    c.args(&args.mpirun_args);
    c.arg(&kura);
    if let Some(db) = &ctx.db {
        // The database is rank 0's: a relative path is taken from here.
        let db = std::path::absolute(db).unwrap_or_else(|_| db.clone());
        c.arg("--db").arg(db);
    }
    for (on, flag) in [
        (ctx.json, "--json"),
        (ctx.quiet, "--quiet"),
        (crate::report::width::wide(), "--wide"),
    ] {
        if on {
            c.arg(flag);
        }
    }
    c.args(&args.command);
    c.stdin(Stdio::null())
        .stdout(Stdio::inherit())
        .stderr(Stdio::piped());
    let mut child = match c.spawn() {
        Ok(child) => child,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            bail!("mpirun was not found on PATH; install Open MPI (Debian: openmpi-bin)")
        }
        Err(e) => bail!("mpirun could not be started: {e}"),
    };
    // kura's own lines pass as they come; MPI's are held.
    let mut held = Vec::new();
    let mut kura_said = false;
    if let Some(err) = child.stderr.take() {
        let mut in_banner = false;
        let mut out = std::io::stderr();
        for line in BufReader::new(err).split(b'\n') {
            let Ok(line) = line else { break };
            let text = String::from_utf8_lossy(&line).into_owned();
            if is_mpi_line(&text, &mut in_banner) {
                held.push(text);
            } else {
                kura_said |= text.starts_with("kura: error");
                let _ = out.write_all(&line);
                let _ = out.write_all(b"\n");
            }
        }
    }
    let status = child.wait()?;
    let code = status.code().unwrap_or(1);
    if code == 0 {
        for l in &held {
            eprintln!("{l}");
        }
        return Ok(0);
    }
    if held.is_empty() || kura_said {
        // kura said why on its own line; mpirun's banner about it adds nothing.
        return Ok(code);
    }
    let hosts = args
        .hostfile
        .as_ref()
        .map(|h| format!(" (hostfile {})", h.display()))
        .unwrap_or_default();
    eprintln!(
        "kura: error: mpirun could not run the {} ranks{hosts}: {}",
        args.ranks,
        condense(&held)
    );
    // MPI could not start the ranks: bad input (a host, the slots), as a refusal.
    Ok(2)
}
